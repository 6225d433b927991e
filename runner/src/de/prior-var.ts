import trigamma from "@stdlib/math-base-special-trigamma";
import gammaln from "@stdlib/math-base-special-gammaln";
import normalCdf from "@stdlib/stats-base-dists-normal-cdf";

/** DESeq2's lower bound on the prior variance of log dispersions. */
export const MIN_PRIOR_VAR = 0.25;

/** The prior variance σ_d² and how it was obtained. */
export interface PriorVariance {
  value: number;
  method: "mad" | "kl-matching";
}

/**
 * Prior variance of the log dispersions around the trend (model.md §5.5 step 5).
 * `residuals` are `log α_gw − log α_tr` over genes with α_gw ≥ 100·minDisp and
 * `varLogDispEsts` is the squared MAD of them.
 *
 * With more than 3 residual degrees of freedom: `max(varLogDispEsts − ψ1((m−p)/2), 0.25)`.
 * With 1 to 3 (e.g. 2 vs 2 paired, or 2 vs 2 unpaired), the sampling distribution of a log
 * dispersion is too skewed for the MAD to work, and DESeq2 instead picks the variance whose
 * implied residual distribution `log(χ²_df/df) + N(0, σ²)` is closest in Kullback–Leibler
 * divergence to the histogram of the residuals. DESeq2 draws that distribution by Monte Carlo
 * (`set.seed(2)`, 10⁴ draws per candidate, loess-smoothed), so its answer depends on the seed:
 * on the Kang CD14 data seeds 1–6 give 0.72, 0.91, and 0.25 four times. This computes the same
 * criterion with the exact bin probabilities instead, which is deterministic.
 */
export function dispersionPriorVariance(
  residuals: Float64Array,
  varLogDispEsts: number,
  residualDf: number,
): PriorVariance {
  if (residualDf > 3) {
    return { value: Math.max(varLogDispEsts - trigamma(residualDf / 2), MIN_PRIOR_VAR), method: "mad" };
  }
  return { value: Math.max(klMatchedVariance(residuals, residualDf), MIN_PRIOR_VAR), method: "kl-matching" };
}

/** DESeq2's histogram breaks: −10 to 10 by 0.5. */
const BREAKS = Array.from({ length: 41 }, (_, i) => -10 + i * 0.5);

/** Histogram densities with R's `hist` conventions (right-closed bins, first bin closed). */
function histogramDensity(values: ArrayLike<number>): Float64Array {
  const counts = new Float64Array(BREAKS.length - 1);
  let n = 0;
  for (let i = 0; i < values.length; i++) {
    const v = values[i]!;
    if (!(v > BREAKS[0]! && v < BREAKS[BREAKS.length - 1]!)) continue;
    const b = Math.max(0, Math.ceil((v - BREAKS[0]!) / 0.5) - 1);
    counts[b]!++;
    n++;
  }
  return counts.map((c) => c / (n * 0.5));
}

/** Quadrature step for W: 1/16 of a histogram bin, so every `break − w` lies on one lattice. */
const H = 0.5 / 16;
/** W = log(χ²_df/df) has an e^{w·df/2} left tail: below −40 its mass is < 1e-8. */
const W_LO = -40;
const W_HI = 5;

/**
 * Bin densities of `W + Z`, `W = log(χ²_df/df)`, `Z ~ N(0, v)`, conditioned on (−10, 10) as
 * DESeq2 conditions its draws. W is integrated by Simpson's rule on a lattice aligned with the
 * breaks, so Φ((b − w)/√v) is needed only once per lattice offset.
 */
function expectedDensity(v: number, wWeight: Float64Array): Float64Array {
  const nW = wWeight.length;
  const sd = Math.sqrt(v);
  const perBin = 16;
  const base = Math.round((BREAKS[0]! - W_LO) / H);
  const kMin = base - (nW - 1);
  const kMax = base + perBin * (BREAKS.length - 1);
  const phi = new Float64Array(kMax - kMin + 1);
  for (let k = kMin; k <= kMax; k++) {
    const z = sd > 0 ? (k * H) / sd : k;
    // Φ is 0 or 1 to double precision beyond 9 standard deviations.
    phi[k - kMin] = z > 9 ? 1 : z < -9 ? 0 : sd > 0 ? normalCdf(z, 0, 1) : k >= 0 ? 1 : 0;
  }
  const cdf = new Float64Array(BREAKS.length);
  for (let e = 0; e < BREAKS.length; e++) {
    let s = 0;
    const off = base + perBin * e - kMin;
    for (let i = 0; i < nW; i++) s += wWeight[i]! * phi[off - i]!;
    cdf[e] = s;
  }
  const total = cdf[cdf.length - 1]! - cdf[0]!;
  const out = new Float64Array(BREAKS.length - 1);
  for (let i = 0; i < out.length; i++) out[i] = (cdf[i + 1]! - cdf[i]!) / total / 0.5;
  return out;
}

function klMatchedVariance(residuals: Float64Array, df: number): number {
  const obs = histogramDensity(residuals);
  // Simpson weights of the density f(w) = df·e^w · dchisq(df·e^w; df) of W.
  const nGrid = Math.round((W_HI - W_LO) / H) + 1;
  const wWeight = new Float64Array(nGrid);
  const k = df / 2;
  for (let i = 0; i < nGrid; i++) {
    const u = df * Math.exp(W_LO + i * H);
    const logDens = (k - 1) * Math.log(u) - u / 2 - k * Math.LN2 - gammaln(k) + Math.log(u);
    const simpson = i === 0 || i === nGrid - 1 ? 1 : i % 2 === 1 ? 4 : 2;
    wWeight[i] = (Math.exp(logDens) * H * simpson) / 3;
  }
  const kl = (v: number): number => {
    const exp = expectedDensity(v, wWeight);
    let small = Number.POSITIVE_INFINITY;
    for (const d of [...obs, ...exp]) if (d > 0 && d < small) small = d;
    let s = 0;
    for (let i = 0; i < obs.length; i++)
      s += obs[i]! * (Math.log(obs[i]! + small) - Math.log(exp[i]! + small));
    return s;
  };
  // DESeq2 searches [0, 8]; a coarse scan then golden-section refinement of the best bracket.
  const step = 0.5;
  let best = 0;
  let bestKl = kl(0);
  for (let v = step; v <= 8 + 1e-12; v += step) {
    const d = kl(v);
    if (d < bestKl) {
      bestKl = d;
      best = v;
    }
  }
  let a = Math.max(0, best - step);
  let b = Math.min(8, best + step);
  const g = (Math.sqrt(5) - 1) / 2;
  let c = b - g * (b - a);
  let d = a + g * (b - a);
  let fc = kl(c);
  let fd = kl(d);
  while (b - a > 1e-4) {
    if (fc < fd) {
      b = d;
      d = c;
      fd = fc;
      c = b - g * (b - a);
      fc = kl(c);
    } else {
      a = c;
      c = d;
      fc = fd;
      d = a + g * (b - a);
      fd = kl(d);
    }
  }
  return (a + b) / 2;
}
