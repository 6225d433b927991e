import type { DispersionTrend } from "./types.ts";
import { trimmedMean } from "./stats.ts";

/** Evaluates the trend at base mean `mean`. */
export function trendAt(trend: DispersionTrend, mean: number): number {
  return trend.kind === "parametric" ? trend.asymptDisp + trend.extraPois / mean : trend.value;
}

/**
 * R's `glm(y ~ I(1/x), family = Gamma(link = "identity"), start)`: IRLS where the working
 * response is y itself and the weights are 1/μ², with R's convergence rule on the deviance.
 * Returns null when a fitted mean leaves (0, ∞) or the design is singular.
 */
function gammaIdentityGlm(
  y: Float64Array,
  invX: Float64Array,
  start: [number, number],
): { coef: [number, number]; converged: boolean } | null {
  const n = y.length;
  let coef: [number, number] = [start[0], start[1]];
  const deviance = (c: [number, number]): number => {
    let d = 0;
    for (let i = 0; i < n; i++) {
      const mu = c[0] + c[1] * invX[i]!;
      d += -2 * (Math.log(y[i]! / mu) - (y[i]! - mu) / mu);
    }
    return d;
  };
  let devOld = deviance(coef);
  for (let iter = 0; iter < 25; iter++) {
    let s00 = 0;
    let s01 = 0;
    let s11 = 0;
    let r0 = 0;
    let r1 = 0;
    for (let i = 0; i < n; i++) {
      const mu = coef[0] + coef[1] * invX[i]!;
      if (!(mu > 0) || !Number.isFinite(mu)) return null;
      const w = 1 / (mu * mu);
      const xi = invX[i]!;
      s00 += w;
      s01 += w * xi;
      s11 += w * xi * xi;
      r0 += w * y[i]!;
      r1 += w * xi * y[i]!;
    }
    const det = s00 * s11 - s01 * s01;
    if (!(Math.abs(det) > 0)) return null;
    coef = [(s11 * r0 - s01 * r1) / det, (s00 * r1 - s01 * r0) / det];
    for (let i = 0; i < n; i++) if (!(coef[0] + coef[1] * invX[i]! > 0)) return null;
    const dev = deviance(coef);
    if (Math.abs(dev - devOld) / (Math.abs(dev) + 0.1) < 1e-8) return { coef, converged: true };
    devOld = dev;
  }
  return { coef, converged: false };
}

/**
 * DESeq2's `parametricDispersionFit`: `α_tr = a0 + a1/μ̄` by a gamma GLM with identity link,
 * refitted on the genes whose ratio α/α_tr lies in (1e-4, 15) until the coefficients settle.
 * Returns null when the fit fails (non-positive coefficient, no convergence).
 */
export function parametricTrend(means: Float64Array, disps: Float64Array): DispersionTrend | null {
  let coefs: [number, number] = [0.1, 1];
  for (let iter = 0; ; iter++) {
    const ys: number[] = [];
    const xs: number[] = [];
    for (let i = 0; i < means.length; i++) {
      const r = disps[i]! / (coefs[0] + coefs[1] / means[i]!);
      if (r > 1e-4 && r < 15) {
        ys.push(disps[i]!);
        xs.push(1 / means[i]!);
      }
    }
    if (ys.length < 2) return null;
    const fit = gammaIdentityGlm(Float64Array.from(ys), Float64Array.from(xs), coefs);
    if (fit === null) return null;
    const old = coefs;
    coefs = fit.coef;
    // model.md §5.5 step 4 treats coefficients ≤ 1e-10 as a failed fit (DESeq2: ≤ 0).
    if (!(coefs[0] > 1e-10 && coefs[1] > 1e-10)) return null;
    const change = Math.log(coefs[0] / old[0]) ** 2 + Math.log(coefs[1] / old[1]) ** 2;
    if (change < 1e-6 && fit.converged)
      return { kind: "parametric", asymptDisp: coefs[0], extraPois: coefs[1] };
    if (iter >= 10) return null;
  }
}

/**
 * Constant trend used when the parametric fit fails: the 0.1 %-trimmed mean of the gene-wise
 * dispersions above 10·minDisp (PyDESeq2's fallback, model.md §5.5 step 4).
 */
export function meanTrend(disps: Float64Array, minDisp: number): DispersionTrend {
  const used = Array.from(disps).filter((d) => d > 10 * minDisp);
  return { kind: "mean", value: used.length > 0 ? trimmedMean(used, 0.001) : 10 * minDisp };
}
