/** Baseline of model.md §16.3: Σ_{d∈D} I(s,d) without the uniform normalization (what the fold correction buys). */
import { rawInfluenceScores } from "../baselines.ts";
import { rankingFromScores, type MethodFactory } from "./method.ts";

export const rawInfluenceMethod: MethodFactory = async (ctx) => [
  {
    name: "raw_influence",
    rank: (c) => rankingFromScores(ctx.primary, rawInfluenceScores(ctx.primary, c.degs)),
  },
];
