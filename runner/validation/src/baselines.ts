/**
 * Baseline rankings of model.md §16.3 over the same candidates S: random, out-degree, raw
 * influence sum without the uniform normalization, and direct-target overlap (hypergeometric
 * on first-neighbour TF targets only, the IPA upstream-regulator analogue).
 */
import type { Model } from "@causeway/runner/model";
import { Xoshiro128ss, seedFrom, hypergeomScore, logFactorials, ulmActivity } from "@causeway/runner/scoring";

/** A score per source (row order of the bundle); higher is better. */
export type BaselineScores = Float64Array;

/** Uniform random scores from a seeded generator (expected rank_percentage 0.5). */
export function randomScores(model: Model, seedSource: string): BaselineScores {
  const rng = new Xoshiro128ss(seedFrom(seedSource).seed);
  return Float64Array.from(model.sourceSymbols, () => rng.nextUint32());
}

/** Out-degree of each source protein. */
export function outDegreeScores(model: Model): BaselineScores {
  return Float64Array.from(model.sourceSymbols, (s) => model.outDegree(s));
}

/** Σ_{d∈D} I(s,d). */
export function rawInfluenceScores(model: Model, degs: readonly string[]): BaselineScores {
  const cols = degs.map((d) => model.rnaIndex(d)).filter((j) => j >= 0);
  return Float64Array.from(model.sourceSymbols, (_, s) => {
    const row = model.sourceRow(s);
    let sum = 0;
    for (const j of cols) sum += row[j]!;
    return sum;
  });
}

/** −log10 hypergeometric p of the DEGs among the source's direct transcriptional targets in U. */
export function directTargetScores(
  model: Model,
  universe: readonly string[],
  degs: readonly string[],
): BaselineScores {
  const U = new Set(universe.filter((g) => model.rnaIndex(g) >= 0));
  for (const d of degs) if (model.rnaIndex(d) >= 0) U.add(d);
  const D = new Set(degs.filter((d) => U.has(d)));
  const N = U.size;
  const n = D.size;
  const lf = logFactorials(N);
  const { indptr, indices } = model.graph.p;
  const ids = model.graph.nodeIds;
  return Float64Array.from(model.sourceSymbols, (s) => {
    const u = model.nodeIndex(s, "PROTEIN");
    let K = 0;
    let k = 0;
    for (let e = indptr[u]!; e < indptr[u + 1]!; e++) {
      if (model.graph.isRna[indices[e]!] !== 1) continue;
      const g = ids[indices[e]!]!.slice(0, -4);
      if (!U.has(g)) continue;
      K++;
      if (D.has(g)) k++;
    }
    return hypergeomScore(k, N, K, n, lf);
  });
}

/** rank_percentage of each source under `scores`, with mid-rank ties (§16.2). */
export function midRankPercentages(scores: BaselineScores): Float64Array {
  const m = scores.length;
  // A comparison, not a difference: −∞ scores (no evidence) must tie, and −∞ − −∞ is NaN.
  const order = Array.from({ length: m }, (_, i) => i).sort((a, b) =>
    scores[b]! > scores[a]! ? 1 : scores[b]! < scores[a]! ? -1 : 0,
  );
  const out = new Float64Array(m);
  for (let i = 0; i < m;) {
    let j = i;
    while (j + 1 < m && scores[order[j + 1]!] === scores[order[i]!]) j++;
    const mid = (i + j) / 2;
    for (let x = i; x <= j; x++) out[order[x]!] = m > 1 ? mid / (m - 1) : 0;
    i = j + 1;
  }
  return out;
}

/**
 * decoupler's univariate linear model (ULM) TF activity (scoring/ulm.ts) on the DE statistic,
 * scored as |t| (a driver may be activated or repressed); sources with fewer than `minTargets`
 * signed direct targets measured score −∞ (ranked last, tied).
 */
export function ulmScores(model: Model, stat: ReadonlyMap<string, number>, minTargets = 5): BaselineScores {
  const { t } = ulmActivity(model, stat, minTargets);
  return Float64Array.from(t, (v) => (Number.isFinite(v) ? Math.abs(v) : -Infinity));
}
