/**
 * Every scoring of the runner's registry (runner/src/scoring/registry.ts) as a ranking method
 * named by the version: the version's own bundle (its walk), the job's scoring input
 * (jobs/scoring-input.ts) and its scorer, with the shipped settings. A new version registered
 * there is benchmarked without a change here.
 */
import { SCORINGS } from "@causeway/runner/scoring";
import { evidenceLayersOf } from "../context.ts";
import type { MethodFactory, Ranking, RankingMethod } from "./method.ts";

const symbolOf = (id: string): string => id.slice(0, id.lastIndexOf("|"));

export const modelVersionMethods: MethodFactory = async (ctx) => {
  const methods: RankingMethod[] = [];
  for (const scoring of Object.values(SCORINGS)) {
    const { version } = scoring;
    const bundle = await ctx.bundle(scoring.walk);
    // A version that reads evidence layers gets the run's libraries and PPI files, as a job gets its version's.
    const layers = (await evidenceLayersOf(ctx, bundle)).filter((l) => scoring.layerKinds.includes(l.kind));
    const model = layers.length > 0 ? bundle.withLayers(layers) : bundle;
    methods.push({
      name: version,
      rank(c): Ranking {
        const { rows } = scoring.score(c.scoringInput(model, version));
        // The table's own candidates: the sources, and with v4 the proteins only its layers name.
        const candidates = rows.map((r) => symbolOf(r.id));
        const position = new Map(candidates.map((s, i) => [s, i]));
        const ranking: Ranking = {
          candidates,
          ranks: Float64Array.from(rows, (r) => r.rank),
          indexOf: (s) => position.get(s) ?? -1,
          ...(rows.length > model.nSources ? { qScale: model.nSources } : {}),
        };
        if (rows[0] && typeof rows[0].in_prediction_set === "boolean") {
          const members = new Set(
            rows.filter((r) => r.in_prediction_set === true).map((r) => symbolOf(r.id)),
          );
          ranking.predictionSet = { size: members.size, has: (s) => members.has(s) };
        }
        return ranking;
      },
    });
  }
  return methods;
};
