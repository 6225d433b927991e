import {
  cholesky,
  choleskyInPlace,
  choleskyInverse,
  choleskySolveInPlace,
  crossprodWeighted,
  crossprodWeightedInto,
  leastSquaresOperator,
} from "./linalg.ts";
import { nbLogLik } from "./nb.ts";

/** DESeq2's IRLS settings (`fitNbinomGLMs` defaults, model.md §5.4). */
export const GLM_DEFAULTS = {
  betaTol: 1e-8,
  maxit: 100,
  minmu: 0.5,
  /** Ridge 1e-6 on log2-scale coefficients, i.e. 1e-6/ln(2)² on the natural-log scale. */
  lambda: 1e-6 / Math.LN2 ** 2,
  /** |β| above this (natural log) counts as divergence, as in DESeq2's fitBeta. */
  large: 30,
} as const;

/** Fit of one gene. Coefficients are on the natural-log scale. */
export interface GlmFit {
  beta: Float64Array;
  /** Sandwich variances of the coefficients, `diag(A⁻¹ XᵀWX A⁻¹)` with `A = XᵀWX + λI`. */
  betaVar: Float64Array;
  /** Fitted means `s_j exp(x_jᵀβ)` (not floored). */
  mu: Float64Array;
  /** Hat-matrix diagonal at the fitted (floored) means. */
  hat: Float64Array;
  iterations: number;
  converged: boolean;
}

/** A design prepared once for many genes. */
export interface GlmDesign {
  x: Float64Array;
  m: number;
  p: number;
  /** `(XᵀX)⁻¹Xᵀ`, for DESeq2's least-squares starting values. */
  lsOp: Float64Array;
}

/** Prepares a design for {@link fitNbGlm}: checks full rank and precomputes the least-squares operator. */
export function prepareGlmDesign(x: Float64Array, m: number, p: number): GlmDesign {
  return { x, m, p, lsOp: leastSquaresOperator(x, m, p) };
}

/**
 * Fits `log μ_j = log s_j + x_jᵀβ` for one gene at fixed dispersion by IRLS, a port of DESeq2's
 * `fitBeta`: start from least squares on `log(q + 0.1)`, floor μ at `minmu` inside the
 * iteration (the weights contain 1/μ), stop when the relative deviance change falls below
 * `betaTol`. `y` are raw counts, `sf` size factors.
 */
export function fitNbGlm(d: GlmDesign, y: ArrayLike<number>, sf: ArrayLike<number>, alpha: number): GlmFit {
  const { x, m, p, lsOp } = d;
  const beta = new Float64Array(p);
  for (let a = 0; a < p; a++) {
    let s = 0;
    for (let j = 0; j < m; j++) s += lsOp[a * m + j]! * Math.log(y[j]! / sf[j]! + 0.1);
    beta[a] = s;
  }
  const mu = new Float64Array(m);
  const w = new Float64Array(m);
  const z = new Float64Array(m);
  const updateMu = (): void => {
    for (let j = 0; j < m; j++) {
      let eta = 0;
      for (let a = 0; a < p; a++) eta += x[j * p + a]! * beta[a]!;
      mu[j] = Math.max(sf[j]! * Math.exp(eta), GLM_DEFAULTS.minmu);
    }
  };
  updateMu();
  const work = new Float64Array(p * p);
  const rhs = new Float64Array(p);
  let devOld = 0;
  let iterations = 0;
  let converged = false;
  for (let t = 0; t < GLM_DEFAULTS.maxit; t++) {
    iterations++;
    for (let j = 0; j < m; j++) {
      w[j] = mu[j]! / (1 + alpha * mu[j]!);
      z[j] = Math.log(mu[j]! / sf[j]!) + (y[j]! - mu[j]!) / mu[j]!;
    }
    crossprodWeightedInto(work, x, m, p, w);
    for (let k = 0; k < p; k++) work[k * p + k]! += GLM_DEFAULTS.lambda;
    rhs.fill(0);
    for (let j = 0; j < m; j++) for (let k = 0; k < p; k++) rhs[k]! += x[j * p + k]! * w[j]! * z[j]!;
    if (!choleskyInPlace(work, p)) break;
    choleskySolveInPlace(work, p, rhs);
    beta.set(rhs);
    if (beta.some((b) => Math.abs(b) > GLM_DEFAULTS.large)) break;
    updateMu();
    const dev = -2 * nbLogLik(y, mu, alpha);
    const convTest = Math.abs(dev - devOld) / (Math.abs(dev) + 0.1);
    if (Number.isNaN(convTest)) break;
    if (t > 0 && convTest < GLM_DEFAULTS.betaTol) {
      converged = true;
      break;
    }
    devOld = dev;
  }
  // Recompute the weights at the final β, so that the result depends on β only.
  updateMu();
  for (let j = 0; j < m; j++) w[j] = mu[j]! / (1 + alpha * mu[j]!);
  const xtwx = crossprodWeighted(x, m, p, w);
  const a = Float64Array.from(xtwx);
  for (let k = 0; k < p; k++) a[k * p + k]! += GLM_DEFAULTS.lambda;
  const l = cholesky(a, p);
  const hat = new Float64Array(m);
  const betaVar = new Float64Array(p).fill(Number.NaN);
  if (l !== null) {
    const ainv = choleskyInverse(l, p);
    for (let j = 0; j < m; j++) {
      let h = 0;
      for (let r = 0; r < p; r++) {
        let s = 0;
        for (let c = 0; c < p; c++) s += ainv[r * p + c]! * x[j * p + c]!;
        h += x[j * p + r]! * s;
      }
      hat[j] = w[j]! * h;
    }
    // Sandwich A⁻¹ (XᵀWX) A⁻¹: equals A⁻¹ up to the ridge, as DESeq2 reports it.
    const tmp = new Float64Array(p * p);
    for (let r = 0; r < p; r++)
      for (let c = 0; c < p; c++) {
        let s = 0;
        for (let k = 0; k < p; k++) s += ainv[r * p + k]! * xtwx[k * p + c]!;
        tmp[r * p + c] = s;
      }
    for (let r = 0; r < p; r++) {
      let s = 0;
      for (let k = 0; k < p; k++) s += tmp[r * p + k]! * ainv[k * p + r]!;
      betaVar[r] = s;
    }
  } else {
    converged = false;
  }
  const muOut = new Float64Array(m);
  for (let j = 0; j < m; j++) {
    let eta = 0;
    for (let a2 = 0; a2 < p; a2++) eta += x[j * p + a2]! * beta[a2]!;
    muOut[j] = sf[j]! * Math.exp(eta);
  }
  return { beta, betaVar, mu: muOut, hat, iterations, converged };
}
