/**
 * Reconcile decision for a Prediction: validate the spec at the operator's edge (the
 * contract's zod schema, cross-field rules of service-spec §4.1 included), then run the
 * shared runner-Job decision.
 */
import { PredictionJobSpec } from "@causeway/contract";
import type { PredictionResource } from "@causeway/contract";
import { reconcileRunnerJob } from "./runner-job.ts";
import { specError } from "./spec-error.ts";
import type { Decision, Observed, ReconcileConfig } from "./types.ts";

/**
 * Why a Prediction spec cannot run, or null. The CRD schema checks shapes; the contract's job
 * spec also checks the cross-field rule the CRD cannot (target_validation).
 */
export function predictionSpecError(spec: unknown): string | null {
  const checked = specError(PredictionJobSpec, spec);
  return "message" in checked ? checked.message : null;
}

/** The pure reconcile decision for one Prediction. */
export function reconcilePrediction(obs: Observed<PredictionResource>, config: ReconcileConfig): Decision {
  return reconcileRunnerJob(obs, config, predictionSpecError(obs.resource.spec));
}
