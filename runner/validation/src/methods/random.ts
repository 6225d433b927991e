/** Baseline of model.md §16.3: uniform random scores, seeded by the case id (expected q 0.5). */
import { randomScores } from "../baselines.ts";
import { rankingFromScores, type MethodFactory } from "./method.ts";

export const randomMethod: MethodFactory = async (ctx) => [
  {
    name: "random",
    rank: (c) => rankingFromScores(ctx.primary, randomScores(ctx.primary, `validate/${c.id}`)),
  },
];
