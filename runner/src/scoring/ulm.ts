/**
 * Univariate linear model (ULM) TF activity, decoupler's method (Badia-i-Mompel et al. 2022):
 * for each candidate with at least `minTargets` signed direct transcriptional targets among the
 * measured genes, the t-value of the slope of a least-squares regression (with intercept) of a
 * per-gene DE statistic over every measured gene on the signed regulon weight (edge sign ×
 * confidence relative to the candidate's heaviest transcriptional edge; 0 for non-targets).
 * Used by model v2 as evidence (on the fold changes a job has) and by `npm run validate` as a
 * baseline (on the table's test statistic).
 */
import normalCdf from "@stdlib/stats-base-dists-normal-cdf";
import normalQuantile from "@stdlib/stats-base-dists-normal-quantile";
import type { Model } from "../model/index.ts";

/** Per source (bundle row order). */
export interface UlmActivity {
  /** Slope t-value; NaN with fewer than `minTargets` signed targets measured or a degenerate fit. */
  t: Float64Array;
  /** Two-sided p of t (so a global sign flip leaves it unchanged); NaN where t is. */
  p: Float64Array;
}

/**
 * Below this many residual degrees of freedom the p-value is not given: it is read from the
 * normal distribution, which a t with hundreds of degrees of freedom matches to the third digit
 * (a DE table measures thousands of genes).
 */
export const ULM_MIN_DF = 100;

/** Normal scores Φ⁻¹((r − ½)/n) of the values' mid-ranks r (1-based): a rank-based inverse normal transform. */
export function normalScores(values: readonly number[]): number[] {
  const n = values.length;
  const order = Array.from({ length: n }, (_, i) => i).sort((a, b) => values[a]! - values[b]!);
  const out = new Array<number>(n);
  for (let i = 0; i < n;) {
    let j = i;
    while (j + 1 < n && values[order[j + 1]!] === values[order[i]!]) j++;
    const z = normalQuantile((i + j + 1) / 2 / n, 0, 1);
    for (let x = i; x <= j; x++) out[order[x]!] = z;
    i = j + 1;
  }
  return out;
}

/**
 * ULM activity of every source from a DE statistic per gene symbol (null or non-finite →
 * unmeasured). `normalScored`: regress the statistic's normal scores instead of its values.
 * Fold changes are heavy-tailed (a lowly expressed gene can move by 2^10), which makes the slope's
 * t heavy-tailed under the null and its normal p-value far too small in the tail; normal scores
 * keep the t close to its reference distribution (model v2 uses them; the baseline does not, to
 * stay decoupler's method).
 */
export function ulmActivity(
  model: Model,
  stat: ReadonlyMap<string, number | null>,
  minTargets = 5,
  normalScored = false,
): UlmActivity {
  const raw: number[] = [];
  const posOfRna = new Int32Array(model.nRna).fill(-1);
  for (const [g, y] of stat) {
    if (y === null || !Number.isFinite(y)) continue;
    const j = model.rnaIndex(g);
    if (j >= 0) posOfRna[j] = raw.length;
    raw.push(y);
  }
  const ys = normalScored ? normalScores(raw) : raw;
  const n = ys.length;
  let sy = 0;
  let syy = 0;
  for (const y of ys) {
    sy += y;
    syy += y * y;
  }
  const nS = model.nSources;
  const out: UlmActivity = { t: new Float64Array(nS).fill(NaN), p: new Float64Array(nS).fill(NaN) };
  const { indptr, indices, data } = model.graph.p;
  const { isRna, layerIndex, sign } = model.graph;
  for (let s = 0; s < nS; s++) {
    const u = model.graph.proteinNodes[model.sourceProteins[s]!]!;
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
    if (m < minTargets || n < 3) continue;
    const Sxx = sxx - (sx * sx) / n;
    const Sxy = sxy - (sx * sy) / n;
    const Syy = syy - (sy * sy) / n;
    if (Sxx <= 0) continue;
    const b = Sxy / Sxx;
    const sse = Math.max(0, Syy - b * Sxy);
    const se = Math.sqrt(sse / (n - 2) / Sxx);
    if (!(se > 0)) continue;
    const t = b / se;
    out.t[s] = t;
    if (n - 2 >= ULM_MIN_DF) out.p[s] = Math.min(1, 2 * normalCdf(-Math.abs(t), 0, 1));
  }
  return out;
}
