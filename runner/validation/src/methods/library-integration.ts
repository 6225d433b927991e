/**
 * The ChEA3/KEA3-style library integration (Keenan et al. 2019; Kuleshov et al. 2021) as a
 * baseline: a Fisher test of the DEGs against every set of every library given with
 * `--libraries` (the regulator's best set per library), a rank per library among the regulators
 * it holds, scaled to (0, 1], and an integrated rank per candidate: MeanRank (the mean of its
 * scaled ranks over the libraries that hold it) and TopRank (its best). Candidates of S that no
 * library holds tie last.
 */
import { loadLayersFromDir } from "@causeway/runner/libraries";
import { layerPValues } from "@causeway/runner/scoring";
import { rankingFromScores, type MethodFactory, type PreparedCase, type RankingMethod } from "./method.ts";

/** Scaled ranks (1/m .. 1) of the finite p-values of one library, smallest p first; NaN elsewhere. */
function scaledRanks(p: Float64Array): Float64Array {
  const held = Array.from(p.keys()).filter((s) => Number.isFinite(p[s]!));
  held.sort((a, b) => p[a]! - p[b]! || a - b);
  const out = new Float64Array(p.length).fill(NaN);
  held.forEach((s, r) => (out[s] = (r + 1) / held.length));
  return out;
}

export const libraryIntegrationMethods: MethodFactory = async (ctx) => {
  if (ctx.librariesDir === null) return [];
  const model = ctx.primary;
  const layers = await loadLayersFromDir(ctx.librariesDir, model.symbols);
  // Both integrations read the same per-library ranks: computed once per case.
  let last: { id: string; ranks: Float64Array[] } | null = null;
  const ranksOf = (c: PreparedCase): Float64Array[] => {
    if (last?.id !== c.id)
      last = { id: c.id, ranks: layerPValues(model, layers, c.universe, c.degs).map(scaledRanks) };
    return last.ranks;
  };
  const integrate = (name: string, rule: "mean" | "top"): RankingMethod => ({
    name,
    rank(c) {
      const ranks = ranksOf(c);
      const scores = Float64Array.from(model.sourceSymbols, (_, s) => {
        const held = ranks.map((r) => r[s]!).filter(Number.isFinite);
        if (held.length === 0) return -Infinity;
        return -(rule === "mean" ? held.reduce((a, b) => a + b, 0) / held.length : Math.min(...held));
      });
      return rankingFromScores(model, scores);
    },
  });
  return [integrate("library_integration", "mean"), integrate("library_toprank", "top")];
};
