/** Target identification (model.md §7–8). */
export {
  scoreTargets,
  type ScoreTargetsInput,
  type ScoreTargetsResult,
  type TargetScoreRow,
  type RandomizationNullRow,
  type SourceInfluenceMatrix,
} from "./score-targets-v1.ts";
export { checkMappedDegs, MIN_MAPPED_DEGS } from "./checks.ts";
export { logHypergeomUpperTail, hypergeomScore, hypergeomZ, logFactorials } from "./hypergeometric.ts";
export { benjaminiHochberg, benjaminiYekutieli } from "../stats/multiple-testing.ts";
export { Xoshiro128ss, seedFrom } from "./prng.ts";
export { buildStrata, quantileBins, type StratumGroup } from "./strata.ts";
export { randomize, type RandomizationStats, type SignificanceIndicator } from "./randomization.ts";
export {
  scoreTargetsV2,
  singleEdgeProxies,
  pvalueExpressed,
  V2_DEFAULTS,
  type ControlDepth,
  type ScoreTargetsV2Input,
  type V2Settings,
  type V2Evidence,
} from "./score-targets-v2.ts";
export { ScoringVersion } from "@causeway/contract";
export { SCORINGS, DEFAULT_SCORING_VERSION, scoringOf, importOptionsFor } from "./registry.ts";
export type { Scoring, ScoringInput } from "./scoring.ts";
export { simes, cauchy, combine, type CombineRule } from "./combine-pvalues.ts";
export { directEvidence, type DirectEvidence, type UniverseView } from "./direct-targets.ts";
export { ulmActivity, ULM_MIN_DF, type UlmActivity } from "./ulm.ts";
export {
  scoreTargetsV3,
  activationState,
  layerPValues,
  V3_WEIGHTS,
  type ScoreTargetsV3Input,
  type V3Weights,
} from "./score-targets-v3.ts";
export { scoreTargetsV4, weightsFor, type ScoreTargetsV4Input } from "./v4/score-targets-v4.ts";
export { MIN_GROUP_CASES, V4_MODEL, V4_MODEL_PATH, V4ModelSchema, type V4Model } from "./v4/weights.ts";
export {
  PERTURBATION_TYPES,
  LIST_KINDS,
  LIST_SIZES,
  listKindOf,
  listSizeOf,
  type ListKind,
  V4_FEATURES,
  V4_CLASS_FEATURES,
  N_V4_FEATURES,
  v4Features,
  layerRanks,
  downstreamTfEvidence,
  deriveFeatures,
  hasLayerEvidence,
  layersBeyondV3,
  type LayersBeyondV3,
  type PerturbationType,
  type V4Feature,
} from "./v4/features.ts";
export { v4Candidates, type V4Candidates } from "./v4/candidates.ts";
export { sourceClasses, type SourceClasses } from "./v4/candidate-classes.ts";
