import gammaln from "@stdlib/math-base-special-gammaln";
import digamma from "@stdlib/math-base-special-digamma";
import { crossprodWeightedInto, spdLogDetInPlace } from "./linalg.ts";

// Reused buffers: the log posterior is evaluated tens of times per gene and allocation
// (garbage collection) dominated the run time.
let wBuf = new Float64Array(64);
let ppBuf = new Float64Array(64);
function scratch(n: number): Float64Array {
  if (wBuf.length < n) wBuf = new Float64Array(n);
  return wBuf;
}
let w2Buf = new Float64Array(64);
let pBuf = new Float64Array(16);
function scratch2(n: number): Float64Array {
  if (w2Buf.length < n) w2Buf = new Float64Array(n);
  return w2Buf;
}
function scratchP(p: number): Float64Array {
  if (pBuf.length < p) pBuf = new Float64Array(p);
  return pBuf;
}
function scratchPP(p: number): Float64Array {
  if (ppBuf.length < p * p) ppBuf = new Float64Array(p * p);
  return ppBuf;
}

/** Normal prior on log α (the MAP step); absent for gene-wise estimates. */
export interface LogAlphaPrior {
  mean: number;
  variance: number;
}

/** One gene's data for the dispersion likelihood: counts and the fitted means (floored). */
export interface DispersionProblem {
  x: Float64Array;
  m: number;
  p: number;
  y: ArrayLike<number>;
  mu: ArrayLike<number>;
  prior: LogAlphaPrior | null;
}

/**
 * Cox–Reid adjusted profile log-likelihood of `a = log α` plus the optional log-normal prior
 * (model.md §5.5 step 3 and 6). The term `−lgamma(y + 1)` is constant in α and left out, as
 * in DESeq2's `log_posterior`.
 */
export function logPosterior(pr: DispersionProblem, a: number): number {
  const { x, m, p, y, mu } = pr;
  const alpha = Math.exp(a);
  const inv = 1 / alpha;
  const w = scratch(m);
  let ll = 0;
  const lgInv = gammaln(inv);
  for (let j = 0; j < m; j++) {
    const u = mu[j]!;
    const k = y[j]!;
    w[j] = 1 / (1 / u + alpha);
    ll += gammaln(k + inv) - lgInv - k * Math.log(u + inv) - inv * Math.log1p(u * alpha);
  }
  const cr = -0.5 * spdLogDetInPlace(crossprodWeightedInto(scratchPP(p), x, m, p, w), p);
  const prior = pr.prior ? (-0.5 * (a - pr.prior.mean) ** 2) / pr.prior.variance : 0;
  return ll + cr + prior;
}

/** Derivative of {@link logPosterior} with respect to `a = log α` (DESeq2's `dlog_posterior`). */
export function dLogPosterior(pr: DispersionProblem, a: number): number {
  const { x, m, p, y, mu } = pr;
  const alpha = Math.exp(a);
  const inv = 1 / alpha;
  const w = scratch(m);
  const dw = scratch2(m);
  const dgInv = digamma(inv);
  let s = 0;
  for (let j = 0; j < m; j++) {
    const u = mu[j]!;
    const k = y[j]!;
    w[j] = 1 / (1 / u + alpha);
    dw[j] = -w[j]! * w[j]!;
    s += dgInv + Math.log1p(u * alpha) - (u * alpha) / (1 + u * alpha) - digamma(k + inv) + k / (u + inv);
  }
  const llPart = inv * inv * s;
  // trace(B⁻¹ dB) with dB = Xᵀ diag(dw) X is Σ_j dw_j x_jᵀ B⁻¹ x_j; with B = L Lᵀ that is
  // Σ_j dw_j |L⁻¹ x_j|², computed without forming B⁻¹.
  const l = scratchPP(p);
  crossprodWeightedInto(l, x, m, p, w);
  let crPart = 0;
  if (Number.isFinite(spdLogDetInPlace(l, p))) {
    const v = scratchP(p);
    let tr = 0;
    for (let j = 0; j < m; j++) {
      let norm2 = 0;
      for (let i = 0; i < p; i++) {
        let s = x[j * p + i]!;
        for (let k = 0; k < i; k++) s -= l[i * p + k]! * v[k]!;
        v[i] = s / l[i * p + i]!;
        norm2 += v[i]! * v[i]!;
      }
      tr += dw[j]! * norm2;
    }
    crPart = -0.5 * tr;
  }
  const prior = pr.prior ? -(a - pr.prior.mean) / pr.prior.variance : 0;
  return (llPart + crPart) * alpha + prior;
}

/** Line-search settings of DESeq2's `fitDisp`. */
export const LINE_SEARCH = {
  kappa0: 1,
  tol: 1e-6,
  maxit: 100,
  epsilon: 1e-4,
  lowerA: -30,
  upperA: 10,
} as const;

/** Outcome of the line search on one gene. */
export interface LineSearchResult {
  logAlpha: number;
  iterations: number;
  initialLp: number;
  lastLp: number;
}

/**
 * Maximizes {@link logPosterior} over log α by DESeq2's Armijo line search along the gradient
 * (port of `fitDisp`). Model.md §5.5 suggests Brent; this exact port is used instead because
 * DESeq2 stops it after `maxit` steps on flat likelihoods and then takes a grid estimate
 * (see {@link gridSearch}); about a tenth of the genes of a 2 vs 2 design end there, and their
 * values feed the trend and the prior, so a different optimizer gives different results.
 */
export function lineSearch(pr: DispersionProblem, start: number, minLogAlpha: number): LineSearchResult {
  const { kappa0, tol, maxit, epsilon, lowerA, upperA } = LINE_SEARCH;
  let a = start;
  let lp = logPosterior(pr, a);
  let dlp = dLogPosterior(pr, a);
  const initialLp = lp;
  let kappa: number = kappa0;
  let iterations = 0;
  let accepted = 0;
  for (let t = 0; t < maxit; t++) {
    iterations++;
    const propose = a + kappa * dlp;
    if (propose < lowerA) kappa = (lowerA - a) / dlp;
    if (propose > upperA) kappa = (upperA - a) / dlp;
    const thetaKappa = -logPosterior(pr, a + kappa * dlp);
    const thetaHatKappa = -lp - kappa * epsilon * dlp * dlp;
    if (thetaKappa <= thetaHatKappa) {
      accepted++;
      a = a + kappa * dlp;
      // Same argument as the proposal just evaluated (DESeq2 recomputes it).
      const lpNew = -thetaKappa;
      const change = lpNew - lp;
      if (change < tol) {
        lp = lpNew;
        break;
      }
      if (a < minLogAlpha) break;
      lp = lpNew;
      dlp = dLogPosterior(pr, a);
      kappa = Math.min(kappa * 1.1, kappa0);
      if (accepted % 5 === 0) kappa = kappa / 2;
    } else {
      kappa = kappa / 2;
    }
  }
  return { logAlpha: a, iterations, initialLp, lastLp: lp };
}

/**
 * DESeq2's fallback when the line search does not converge (`fitDispGrid`): the best of 20
 * log-spaced values between `minLogAlpha` and `maxLogAlpha`, refined once on 20 values
 * around it. Returns log α.
 */
export function gridSearch(pr: DispersionProblem, minLogAlpha: number, maxLogAlpha: number): number {
  const n = 20;
  const delta = (maxLogAlpha - minLogAlpha) / (n - 1);
  const best = (grid: (i: number) => number): number => {
    let bestA = grid(0);
    let bestLp = Number.NEGATIVE_INFINITY;
    for (let i = 0; i < n; i++) {
      const a = grid(i);
      const lp = logPosterior(pr, a);
      if (lp > bestLp) {
        bestLp = lp;
        bestA = a;
      }
    }
    return bestA;
  };
  const coarse = best((i) => minLogAlpha + i * delta);
  return best((i) => coarse - delta + (2 * delta * i) / (n - 1));
}
