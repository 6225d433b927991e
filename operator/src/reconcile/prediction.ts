/**
 * Reconcile decision for a Prediction: validate the spec at the operator's edge (the
 * contract's zod schema plus the cross-field rules of service-spec §4.1), then run the
 * shared runner-Job decision.
 */
import { PredictionJobSpec } from "@causeway/contract";
import type { PredictionResource } from "@causeway/contract";
import { reconcileRunnerJob } from "./runner-job.ts";
import type { Decision, Observed, ReconcileConfig } from "./types.ts";

/** Why a Prediction spec cannot run, or null. The CRD schema checks shapes; these need two fields. */
export function predictionSpecError(spec: unknown): string | null {
  const parsed = PredictionJobSpec.safeParse(spec);
  if (!parsed.success) {
    return parsed.error.issues.map((i) => `${i.path.join(".") || "spec"}: ${i.message}`).join("; ");
  }
  const s = parsed.data;
  if (s.job_type === "target_validation") {
    if (s.target === null) return "target_validation requires target";
    if (s.inputs.shape !== "split") return "target_validation requires split inputs";
  }
  return null;
}

/** The pure reconcile decision for one Prediction. */
export function reconcilePrediction(obs: Observed<PredictionResource>, config: ReconcileConfig): Decision {
  return reconcileRunnerJob(obs, config, predictionSpecError(obs.resource.spec));
}
