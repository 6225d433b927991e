/** The runtime's one entry into the decisions: the pure reconcile function of a resource's kind. */
import type { CausalAnalysisResource, JobKind, PredictionResource } from "@causeway/contract";
import { reconcileCausalAnalysis } from "./causal-analysis.ts";
import { reconcilePrediction } from "./prediction.ts";
import type { Decision, Observed, ReconcileConfig } from "./types.ts";

/** The decision for a resource of either kind. */
export function decide(kind: JobKind, observed: Observed, config: ReconcileConfig): Decision {
  return kind === "prediction"
    ? reconcilePrediction(observed as Observed<PredictionResource>, config)
    : reconcileCausalAnalysis(observed as Observed<CausalAnalysisResource>, config);
}
