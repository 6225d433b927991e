/**
 * Reconcile decision for a CausalAnalysis: validate the spec against the contract, then run
 * the shared runner-Job decision.
 */
import { CausalAnalysisJobSpec } from "@causeway/contract";
import type { CausalAnalysisResource } from "@causeway/contract";
import { reconcileRunnerJob } from "./runner-job.ts";
import { specError } from "./spec-error.ts";
import type { Decision, Observed, ReconcileConfig } from "./types.ts";

/** Why a CausalAnalysis spec cannot run, or null. */
export function causalAnalysisSpecError(spec: unknown): string | null {
  const checked = specError(CausalAnalysisJobSpec, spec);
  if ("message" in checked) return checked.message;
  if (Object.keys(checked.data.prediction_artifacts).length === 0) return "prediction_artifacts is empty";
  return null;
}

/** The pure reconcile decision for one CausalAnalysis. */
export function reconcileCausalAnalysis(
  obs: Observed<CausalAnalysisResource>,
  config: ReconcileConfig,
): Decision {
  return reconcileRunnerJob(obs, config, causalAnalysisSpecError(obs.resource.spec));
}
