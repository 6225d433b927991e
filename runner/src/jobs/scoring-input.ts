/**
 * The scoring input of one contrast, as a job builds it for a model version. One function, so
 * that `npm run validate` scores a known-answer case through exactly the path a job (and the
 * command line) takes for the same DEG list.
 */
import type { JobType, PredictionParams } from "@causeway/contract";
import type { Model } from "../model/index.ts";
import { scoringOf, type ScoringInput, type ScoringVersion } from "../scoring/index.ts";
import type { Contrast } from "./contrast.ts";

export interface ScoringInputOptions {
  model: Model;
  contrast: Contrast;
  params: Pick<PredictionParams, "deg_significance_fold" | "min_mean_expression" | "n_randomizations"> &
    Partial<Pick<PredictionParams, "perturbation_type">>;
  scoring: ScoringVersion;
  predictionId: string;
  jobType: JobType;
}

export function scoringInputOf(o: ScoringInputOptions): ScoringInput {
  const { contrast } = o;
  return {
    model: o.model,
    log2fc: contrast.log2fc,
    ...(contrast.testStatistic ? { testStatistic: contrast.testStatistic } : {}),
    ...(contrast.measuredGenes ? { measuredGenes: contrast.measuredGenes } : {}),
    ...(contrast.controlDepth ? { controlDepth: contrast.controlDepth } : {}),
    universe: contrast.universe,
    degs: contrast.mappedDegs,
    degSignificanceFold: o.params.deg_significance_fold,
    minMeanExpression: o.params.min_mean_expression,
    meanCp10kControl:
      scoringOf(o.scoring).readsTableExpression && contrast.meanCp10kControl.size === 0
        ? contrast.tableMeanCp10kControl
        : contrast.meanCp10kControl,
    meanCp10kBoth: contrast.meanCp10kBoth,
    isDegSymbols: contrast.degSymbols,
    nRandomizations: o.params.n_randomizations,
    seedSource: `${o.predictionId}/${contrast.prefix}`,
    jobType: o.jobType,
    // Only a scoring that conditions on it reads it; the others' inputs stay as they were.
    ...(scoringOf(o.scoring).readsPerturbationType && o.params.perturbation_type
      ? { perturbationType: o.params.perturbation_type }
      : {}),
  };
}
