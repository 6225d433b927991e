import type { Design, DispersionTrend } from "./types.ts";
import type { GlmDesign } from "./nb-glm.ts";
import { fitNbGlm, GLM_DEFAULTS } from "./nb-glm.ts";
import type { DispersionProblem } from "./dispersion-fit.ts";
import { gridSearch, LINE_SEARCH, lineSearch } from "./dispersion-fit.ts";
import { meanTrend, parametricTrend, trendAt } from "./trend.ts";
import { dispersionPriorVariance } from "./prior-var.ts";
import { mad } from "./stats.ts";

/** DESeq2's dispersion bounds and outlier rule (model.md §5.5). */
export const DISPERSION_DEFAULTS = { minDisp: 1e-8, outlierSd: 2 } as const;

/** Inputs shared by the dispersion steps; counts are gene-major over the tested genes. */
export interface DispersionInput {
  design: Design;
  glm: GlmDesign;
  counts: Float64Array;
  nGenes: number;
  sizeFactors: Float64Array;
  baseMean: Float64Array;
  baseVar: Float64Array;
  /** Fixed σ_d² (reproducing a reference run); estimated when undefined. */
  dispPriorVar?: number;
}

/** Every dispersion quantity of model.md §5.5, per gene. */
export interface Dispersions {
  initial: Float64Array;
  geneWise: Float64Array;
  trend: Float64Array;
  map: Float64Array;
  final: Float64Array;
  outlier: boolean[];
  trendFit: DispersionTrend;
  trendFallback: boolean;
  priorVar: number;
  priorVarMethod: "mad" | "kl-matching" | "given";
  varLogDispEsts: number;
}

/**
 * Initial dispersions (step 1): the smaller of DESeq2's rough estimate (residuals of a
 * least-squares fit of the normalized counts, means floored at 1) and the method-of-moments
 * estimate, clipped to [minDisp, maxDisp].
 */
export function initialDispersions(inp: DispersionInput, maxDisp: number): Float64Array {
  const { design, glm, counts, nGenes, sizeFactors, baseMean, baseVar } = inp;
  const { m, p, x } = design;
  let xim = 0;
  for (let j = 0; j < m; j++) xim += 1 / sizeFactors[j]! / m;
  const out = new Float64Array(nGenes);
  const q = new Float64Array(m);
  for (let g = 0; g < nGenes; g++) {
    for (let j = 0; j < m; j++) q[j] = counts[g * m + j]! / sizeFactors[j]!;
    const mu = linearModelFit(glm, x, q);
    let rough = 0;
    for (let j = 0; j < m; j++) {
      const u = Math.max(1, mu[j]!);
      rough += ((q[j]! - u) ** 2 - u) / (u * u);
    }
    rough = Math.max(rough / (m - p), 0);
    const moments = (baseVar[g]! - xim * baseMean[g]!) / baseMean[g]! ** 2;
    const a = Math.min(rough, moments);
    out[g] = Math.min(Math.max(a, DISPERSION_DEFAULTS.minDisp), maxDisp);
  }
  return out;
}

/** Least-squares fitted values `X (XᵀX)⁻¹ Xᵀ v`. */
function linearModelFit(glm: GlmDesign, x: Float64Array, v: ArrayLike<number>): Float64Array {
  const { m, p, lsOp } = glm;
  const beta = new Float64Array(p);
  for (let a = 0; a < p; a++) {
    let s = 0;
    for (let j = 0; j < m; j++) s += lsOp[a * m + j]! * v[j]!;
    beta[a] = s;
  }
  const out = new Float64Array(m);
  for (let j = 0; j < m; j++) {
    let s = 0;
    for (let a = 0; a < p; a++) s += x[j * p + a]! * beta[a]!;
    out[j] = s;
  }
  return out;
}

/**
 * No gene is measurably over-dispersed (all gene-wise values near the floor): nothing to fit
 * a trend or a prior to. DESeq2 then sets every dispersion to 10·minDisp; so does this.
 */
function poissonLike(initial: Float64Array, geneWise: Float64Array, minDisp: number): Dispersions {
  const n = geneWise.length;
  const value = 10 * minDisp;
  return {
    initial,
    geneWise,
    trend: new Float64Array(n).fill(value),
    map: new Float64Array(n).fill(value),
    final: new Float64Array(n).fill(value),
    outlier: new Array<boolean>(n).fill(false),
    trendFit: { kind: "mean", value },
    trendFallback: true,
    priorVar: 0.25,
    priorVarMethod: "given",
    varLogDispEsts: 0,
  };
}

/**
 * Runs steps 1–7 of model.md §5.5 as DESeq2 does (`estimateDispersionsGeneEst`, `…Fit`,
 * `…MAP`). Returns per-gene values aligned with the input genes.
 */
export function estimateDispersions(inp: DispersionInput): Dispersions {
  const { design, glm, counts, nGenes, sizeFactors, baseMean } = inp;
  const { m, p, x } = design;
  const { minDisp, outlierSd } = DISPERSION_DEFAULTS;
  const maxDisp = Math.max(10, m);
  const minLogAlpha = Math.log(minDisp / 10);
  const gridLo = Math.log(minDisp);
  const gridHi = Math.log(maxDisp);
  const initial = initialDispersions(inp, maxDisp);

  // Step 2: means at the initial dispersion. For designs whose coefficients are group means
  // DESeq2 uses the least-squares fit of the normalized counts instead of the GLM (linearMu).
  const linearMu = design.nCells === p;
  const mus = new Float64Array(nGenes * m);
  const q = new Float64Array(m);
  for (let g = 0; g < nGenes; g++) {
    const y = counts.subarray(g * m, (g + 1) * m);
    let mu: Float64Array;
    if (linearMu) {
      for (let j = 0; j < m; j++) q[j] = y[j]! / sizeFactors[j]!;
      mu = linearModelFit(glm, x, q).map((v, j) => v * sizeFactors[j]!);
    } else {
      mu = fitNbGlm(glm, y, sizeFactors, initial[g]!).mu;
    }
    for (let j = 0; j < m; j++) mus[g * m + j] = Math.max(mu[j]!, GLM_DEFAULTS.minmu);
  }
  const problem = (g: number, prior: DispersionProblem["prior"]): DispersionProblem => ({
    x,
    m,
    p,
    y: counts.subarray(g * m, (g + 1) * m),
    mu: mus.subarray(g * m, (g + 1) * m),
    prior,
  });

  // Step 3: gene-wise Cox–Reid estimates.
  const geneWise = new Float64Array(nGenes);
  for (let g = 0; g < nGenes; g++) {
    const pr = problem(g, null);
    const ls = lineSearch(pr, Math.log(initial[g]!), minLogAlpha);
    let est = Math.min(Math.exp(ls.logAlpha), maxDisp);
    // DESeq2 keeps the starting value unless the line search improved the likelihood.
    if (ls.lastLp < ls.initialLp + Math.abs(ls.initialLp) / 1e6) est = initial[g]!;
    const converged = ls.iterations < LINE_SEARCH.maxit && ls.iterations !== 1;
    if (!converged && est > minDisp * 10) est = Math.exp(gridSearch(pr, gridLo, gridHi));
    geneWise[g] = Math.min(Math.max(est, minDisp), maxDisp);
  }

  // Step 4: trend over genes clear of the lower bound.
  const useForFit: number[] = [];
  for (let g = 0; g < nGenes; g++) if (geneWise[g]! > 100 * minDisp) useForFit.push(g);
  if (useForFit.length === 0) return poissonLike(initial, geneWise, minDisp);
  const parametric = parametricTrend(
    Float64Array.from(useForFit, (g) => baseMean[g]!),
    Float64Array.from(useForFit, (g) => geneWise[g]!),
  );
  const trendFit = parametric ?? meanTrend(geneWise, minDisp);
  const trend = Float64Array.from(baseMean, (bm) => trendAt(trendFit, bm));

  // Step 5: spread of the log residuals, prior variance.
  const residuals: number[] = [];
  for (let g = 0; g < nGenes; g++)
    if (geneWise[g]! >= 100 * minDisp) residuals.push(Math.log(geneWise[g]!) - Math.log(trend[g]!));
  const varLogDispEsts = mad(residuals) ** 2;
  let priorVar: number;
  let priorVarMethod: Dispersions["priorVarMethod"];
  if (inp.dispPriorVar !== undefined) {
    priorVar = inp.dispPriorVar;
    priorVarMethod = "given";
  } else {
    const est = dispersionPriorVariance(Float64Array.from(residuals), varLogDispEsts, m - p);
    priorVar = est.value;
    priorVarMethod = est.method;
  }

  // Step 6: MAP, started from the gene-wise value unless it is far below the trend.
  const map = new Float64Array(nGenes);
  for (let g = 0; g < nGenes; g++) {
    const pr = problem(g, { mean: Math.log(trend[g]!), variance: priorVar });
    const init = geneWise[g]! > 0.1 * trend[g]! ? geneWise[g]! : trend[g]!;
    const ls = lineSearch(pr, Math.log(init), minLogAlpha);
    let est = Math.exp(ls.logAlpha);
    if (!(ls.iterations < LINE_SEARCH.maxit)) est = Math.exp(gridSearch(pr, gridLo, gridHi));
    map[g] = Math.min(Math.max(est, minDisp), maxDisp);
  }

  // Step 7: genes far above the trend keep their own estimate.
  const sd = Math.sqrt(varLogDispEsts);
  const outlier = Array.from(geneWise, (d, g) => Math.log(d) > Math.log(trend[g]!) + outlierSd * sd);
  const final = Float64Array.from(map, (v, g) => (outlier[g] ? geneWise[g]! : v));
  return {
    initial,
    geneWise,
    trend,
    map,
    final,
    outlier,
    trendFit,
    trendFallback: parametric === null,
    priorVar,
    priorVarMethod,
    varLogDispEsts,
  };
}
