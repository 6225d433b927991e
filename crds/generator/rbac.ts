/**
 * RBAC rules of the operator and the API: the verbs each one uses and nothing more. The
 * generator writes them into the chart (charts/causeway/files/rbac/), so the chart and the
 * cluster tests apply the same rules.
 */
import { GROUP, RESOURCES } from "../src/resources.ts";

/** A PolicyRule (rbac.authorization.k8s.io/v1). */
export interface PolicyRule {
  apiGroups: string[];
  resources: string[];
  verbs: string[];
}

const plurals = [RESOURCES.prediction.plural, RESOURCES.causal_analysis.plural];

/**
 * The operator: reads resources, writes their status, deletes finished ones past their retention,
 * owns Jobs, Secrets, Events and its Lease.
 */
export const OPERATOR_RULES: PolicyRule[] = [
  { apiGroups: [GROUP], resources: plurals, verbs: ["get", "list", "watch", "delete"] },
  { apiGroups: [GROUP], resources: plurals.map((p) => `${p}/status`), verbs: ["get", "patch"] },
  // A Job's controller reference blocks its owner's deletion (blockOwnerDeletion), which the
  // OwnerReferencesPermissionEnforcement admission plugin (on in OpenShift) allows only to a
  // user that may update the owner's finalizers. The operator sets no finalizer.
  { apiGroups: [GROUP], resources: plurals.map((p) => `${p}/finalizers`), verbs: ["update"] },
  { apiGroups: ["batch"], resources: ["jobs"], verbs: ["create", "get", "list", "watch", "delete"] },
  { apiGroups: [""], resources: ["secrets"], verbs: ["create"] },
  { apiGroups: [""], resources: ["pods"], verbs: ["list", "watch"] },
  { apiGroups: ["events.k8s.io"], resources: ["events"], verbs: ["create", "patch"] },
  { apiGroups: ["coordination.k8s.io"], resources: ["leases"], verbs: ["get", "create", "update"] },
];

/** The API: creates resources (dispatch) and mirrors runner callbacks into their status (a merge patch: no read). */
export const API_RULES: PolicyRule[] = [
  { apiGroups: [GROUP], resources: plurals, verbs: ["create"] },
  { apiGroups: [GROUP], resources: plurals.map((p) => `${p}/status`), verbs: ["patch"] },
];
