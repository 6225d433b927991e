/** Causal analysis (model.md §10). */
export {
  causalAnalysis,
  type CausalAnalysisInput,
  type CausalAnalysisResult,
  type ImpactedDegRow,
} from "./causal-analysis.ts";
export { degInfluences, impactedDegs, type DegInfluence, type ImpactedDegsOptions } from "./impacted-degs.ts";
export {
  causalPaths,
  enumeratePaths,
  DEFAULT_PATH_SEARCH_BUDGET,
  type CausalPathRow,
  type PathOptions,
} from "./paths.ts";
export {
  intermediaryProteins,
  MAX_SCANNED_ROWS,
  type PathRowLike,
  type IntermediaryOptions,
} from "./intermediaries.ts";
