/**
 * The custom resources' shared vocabulary: names, the status schema (zod, the one source for
 * both the TypeScript types and the CRD's `status` schema) and the resource types. The `spec`
 * of each resource is exactly the runner's job spec (crds/src/job-spec.ts).
 */
import { z } from "zod";
import type { V1ObjectMeta } from "@kubernetes/client-node";
import type { CausalAnalysisJobSpec, JobKind, PredictionJobSpec } from "./job-spec.ts";

export const GROUP = "causeway.io";
export const VERSION = "v1";
export const API_VERSION = `${GROUP}/${VERSION}`;

/** Names of the two resources, keyed by the contract's job kind. */
export const RESOURCES = {
  prediction: {
    kind: "Prediction",
    plural: "predictions",
    singular: "prediction",
    listKind: "PredictionList",
    shortNames: ["pred", "preds"],
  },
  causal_analysis: {
    kind: "CausalAnalysis",
    plural: "causalanalyses",
    singular: "causalanalysis",
    listKind: "CausalAnalysisList",
    shortNames: ["ca", "cas"],
  },
} as const satisfies Record<JobKind, ResourceNames>;

/** The names of one CRD. */
export interface ResourceNames {
  kind: string;
  plural: string;
  singular: string;
  listKind: string;
  shortNames: readonly string[];
}

/** `kubectl get causeway` lists both kinds. */
export const CATEGORIES = ["causeway", "all"] as const;

/** Server-side-apply field managers: one per writer (see crds/README.md). */
export const FIELD_MANAGERS = {
  api: "causeway-api",
  operator: "causeway-operator",
} as const;

/**
 * The server-side apply of one writer's status fields (the arguments of client-node's
 * `patchNamespacedCustomObjectStatus`): its own field manager, and `force` because each writer
 * owns its fields outright.
 */
export function statusApply<B extends object>(
  ref: { namespace: string; plural: string; name: string },
  body: B,
  writer: keyof typeof FIELD_MANAGERS,
): {
  group: string;
  version: string;
  namespace: string;
  plural: string;
  name: string;
  body: B;
  fieldManager: string;
  force: true;
} {
  return { group: GROUP, version: VERSION, ...ref, body, fieldManager: FIELD_MANAGERS[writer], force: true };
}

/** Annotations the API may set on a resource; the operator copies them into the runner's env. */
export const ANNOTATIONS = {
  traceparent: "causeway.io/traceparent",
  tracestate: "causeway.io/tracestate",
} as const;

/** Labels the operator puts on the children (Job, Secret) of a resource. */
export const LABELS = {
  kind: "causeway.io/kind",
  resource: "causeway.io/resource",
  managedBy: "app.kubernetes.io/managed-by",
} as const;

/** metav1.Condition, with the apiserver's own bounds. */
export const Condition = z.object({
  type: z
    .string()
    .max(316)
    .regex(
      /^([a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*\/)?(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])$/,
    ),
  status: z.enum(["True", "False", "Unknown"]),
  observedGeneration: z.number().int().min(0).optional(),
  lastTransitionTime: z.iso.datetime(),
  reason: z
    .string()
    .min(1)
    .max(1024)
    .regex(/^[A-Za-z]([A-Za-z0-9_,:]*[A-Za-z0-9_])?$/),
  message: z.string().max(32768),
});
export type Condition = z.infer<typeof Condition>;

/** The service-spec states (§3), capitalised as Kubernetes phases are. */
export const Phase = z.enum(["Pending", "Processing", "Completed", "Failed"]);
export type Phase = z.infer<typeof Phase>;

const failureCode = z
  .string()
  .min(1)
  .max(64)
  .regex(/^[a-z][a-z0-9_]*$/);

/** What the runner reported through its callbacks, mirrored by the API (the API is its only writer). */
export const ReportedStatus = z
  .object({
    status: z.enum(["pending", "processing", "completed", "failed"]),
    processingStep: z.string().max(64).nullable().optional(),
    progressPct: z.number().int().min(0).max(100).nullable().optional(),
    errorCode: failureCode.nullable().optional(),
    errorMessage: z.string().max(4000).nullable().optional(),
  })
  .meta({ description: "Runner-reported state, written only by the API (field manager causeway-api)." });
export type ReportedStatus = z.infer<typeof ReportedStatus>;

/** A failure the runner could not report itself (OOM, deadline, pod never started), found by the operator. */
export const OperatorFailure = z.object({
  reason: z.string().min(1).max(128),
  errorCode: failureCode,
  message: z.string().max(4000),
});
export type OperatorFailure = z.infer<typeof OperatorFailure>;

/** The status of both resources. Small by design: results live in PostgreSQL and S3, never here. */
export const CausewayStatus = z.object({
  observedGeneration: z.number().int().min(0).optional(),
  phase: Phase.optional(),
  jobName: z.string().max(63).optional(),
  startTime: z.iso.datetime().optional(),
  completionTime: z.iso.datetime().optional(),
  failure: OperatorFailure.optional(),
  conditions: z
    .array(Condition)
    .max(16)
    .optional()
    .meta({ "x-kubernetes-list-type": "map", "x-kubernetes-list-map-keys": ["type"] }),
  reported: ReportedStatus.optional(),
});
export type CausewayStatus = z.infer<typeof CausewayStatus>;

/** The condition types, named after the Job's own. */
export const CONDITION_TYPES = {
  created: "Created",
  running: "Running",
  complete: "Complete",
  failed: "Failed",
} as const;

interface ResourceBase<K extends string, S> {
  apiVersion: typeof API_VERSION;
  kind: K;
  metadata: V1ObjectMeta;
  spec: S;
  status?: CausewayStatus;
}

/** A Prediction custom resource. */
export type PredictionResource = ResourceBase<"Prediction", PredictionJobSpec>;
/** A CausalAnalysis custom resource. */
export type CausalAnalysisResource = ResourceBase<"CausalAnalysis", CausalAnalysisJobSpec>;
/** Either resource. */
export type CausewayResource = PredictionResource | CausalAnalysisResource;

/** The resource name for a job id: the id itself, lower-cased (uuids are valid DNS-1123 subdomains). */
export function resourceName(jobId: string): string {
  return jobId.toLowerCase();
}
