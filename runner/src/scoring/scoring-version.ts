/**
 * The scoring of a model version. A model version's manifest names its scoring (`scoring`,
 * v1 when absent); v1 and v2 read the same influence bundle, so a v2 version is a v1 bundle
 * whose manifest says `"scoring": "v2"`.
 */
import { z } from "zod";
import type { ScoreTargetsResult } from "./score-targets.ts";
import { scoreTargets } from "./score-targets.ts";
import { scoreTargetsV2, type ScoreTargetsV2Input } from "./score-targets-v2.ts";

export const ScoringVersion = z.enum(["v1", "v2"]);
export type ScoringVersion = z.infer<typeof ScoringVersion>;

/** Scores with the given scoring; v1 ignores the fold changes and v2 settings. */
export function scoreTargetsWith(version: ScoringVersion, input: ScoreTargetsV2Input): ScoreTargetsResult {
  return version === "v2" ? scoreTargetsV2(input) : scoreTargets(input);
}
