/** Target identification (model.md §7–8). */
export {
  scoreTargets,
  type ScoreTargetsInput,
  type ScoreTargetsResult,
  type TargetScoreRow,
  type RandomizationNullRow,
  type SourceInfluenceMatrix,
} from "./score-targets.ts";
export { checkMappedDegs, MIN_MAPPED_DEGS } from "./checks.ts";
export { logHypergeomUpperTail, hypergeomScore, hypergeomZ, logFactorials } from "./hypergeometric.ts";
export { benjaminiHochberg } from "./bh.ts";
export { Xoshiro128ss, seedFrom } from "./prng.ts";
export { buildStrata, quantileBins, type StratumGroup } from "./strata.ts";
export { randomize, type RandomizationStats, type SignificanceIndicator } from "./randomization.ts";
