/**
 * Every scoring of the runner's registry (runner/src/scoring/registry.ts) as a ranking method
 * named by the version: the version's own bundle (its walk), the job's scoring input
 * (jobs/scoring-input.ts) and its scorer, with the shipped settings. A new version registered
 * there is benchmarked without a change here.
 */
import { loadLayersFromDir } from "@causeway/runner/libraries";
import { SCORINGS } from "@causeway/runner/scoring";
import type { MethodFactory, Ranking, RankingMethod } from "./method.ts";

const symbolOf = (id: string): string => id.slice(0, id.lastIndexOf("|"));

export const modelVersionMethods: MethodFactory = async (ctx) => {
  const methods: RankingMethod[] = [];
  for (const scoring of Object.values(SCORINGS)) {
    const { version } = scoring;
    const bundle = await ctx.bundle(scoring.walk);
    // A version that reads evidence layers gets the run's libraries, as a job gets its version's.
    const model =
      scoring.readsLayers && ctx.librariesDir
        ? bundle.withLayers(await loadLayersFromDir(ctx.librariesDir, bundle.symbols))
        : bundle;
    methods.push({
      name: version,
      rank(c): Ranking {
        const { rows } = scoring.score(c.scoringInput(model, version));
        const ranks = new Float64Array(model.nSources);
        for (const r of rows) ranks[model.sourceIndex(symbolOf(r.id))] = r.rank;
        return { candidates: model.sourceSymbols, ranks, indexOf: (s) => model.sourceIndex(s) };
      },
    });
  }
  return methods;
};
