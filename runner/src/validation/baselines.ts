/**
 * Baseline rankings of model.md §16.3 over the same candidates S: random, out-degree, raw
 * influence sum without the uniform normalization, and direct-target overlap (hypergeometric
 * on first-neighbour TF targets only, the IPA upstream-regulator analogue).
 */
import type { Model } from "../model/index.ts";
import { Xoshiro128ss, seedFrom } from "../scoring/prng.ts";
import { hypergeomScore, logFactorials } from "../scoring/hypergeometric.ts";

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
 * decoupler's univariate linear model (ULM) TF activity: for each source with at least
 * `minTargets` signed direct targets among the measured genes, the t-value of the slope of a
 * linear regression (with intercept) of the DE statistic of every measured gene on the signed
 * regulon weight (edge sign × confidence, 0 for non-targets). Scored as |t| (a driver may be
 * activated or repressed); sources without enough targets score −∞ (ranked last, tied).
 */
export function ulmScores(model: Model, stat: ReadonlyMap<string, number>, minTargets = 5): BaselineScores {
  const ys: number[] = [];
  const posOfRna = new Int32Array(model.nRna).fill(-1);
  for (const [g, y] of stat) {
    if (!Number.isFinite(y)) continue;
    const j = model.rnaIndex(g);
    if (j >= 0) posOfRna[j] = ys.length;
    ys.push(y);
  }
  const n = ys.length;
  let sy = 0;
  let syy = 0;
  for (const y of ys) {
    sy += y;
    syy += y * y;
  }
  const { indptr, indices, data } = model.graph.p;
  const { isRna, layerIndex, sign } = model.graph;
  return Float64Array.from(model.sourceSymbols, (symbol) => {
    const u = model.nodeIndex(symbol, "PROTEIN");
    let maxW = 0;
    for (let e = indptr[u]!; e < indptr[u + 1]!; e++)
      if (isRna[indices[e]!] === 1) maxW = Math.max(maxW, data[e]!);
    let m = 0;
    let sx = 0;
    let sxx = 0;
    let sxy = 0;
    for (let e = indptr[u]!; e < indptr[u + 1]!; e++) {
      const v = indices[e]!;
      if (isRna[v] !== 1 || sign[e] === 0) continue;
      const pos = posOfRna[layerIndex[v]!]!;
      if (pos < 0) continue;
      const x = (sign[e]! * data[e]!) / maxW;
      m++;
      sx += x;
      sxx += x * x;
      sxy += x * ys[pos]!;
    }
    if (m < minTargets || n < 3) return -Infinity;
    const Sxx = sxx - (sx * sx) / n;
    const Sxy = sxy - (sx * sy) / n;
    const Syy = syy - (sy * sy) / n;
    if (Sxx <= 0) return -Infinity;
    const b = Sxy / Sxx;
    const sse = Math.max(0, Syy - b * Sxy);
    const se = Math.sqrt(sse / (n - 2) / Sxx);
    return se > 0 ? Math.abs(b / se) : -Infinity;
  });
}
