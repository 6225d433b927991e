/**
 * Baseline of model.md §16.3: hypergeometric overlap of the DEGs with each candidate's direct
 * transcriptional targets (first neighbours only) in the case's universe, IPA's
 * upstream-regulator analogue.
 */
import { directTargetScores } from "../baselines.ts";
import { rankingFromScores, type MethodFactory } from "./method.ts";

export const directTargetsMethod: MethodFactory = async (ctx) => [
  {
    name: "direct_targets",
    rank: (c) => rankingFromScores(ctx.primary, directTargetScores(ctx.primary, c.universe, c.degs)),
  },
];
