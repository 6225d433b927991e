/** Baseline of model.md §16.3: out-degree of each candidate protein, no data at all (a popularity prior). */
import { outDegreeScores } from "../baselines.ts";
import { rankingFromScores, type MethodFactory, type Ranking } from "./method.ts";

export const outDegreeMethod: MethodFactory = async (ctx) => {
  // The same for every case: computed once.
  const ranking: Ranking = rankingFromScores(ctx.primary, outDegreeScores(ctx.primary));
  return [{ name: "out_degree", rank: () => ranking }];
};
