import { JobFailure } from "@causeway/contract";
import type { DeGeneRow, DeOptions, DeResult, DeWarning, PseudoBulk } from "./types.ts";
import { buildDesign } from "./design.ts";
import { DeInputError } from "./errors.ts";
import { filterByExpr } from "./filter.ts";
import { estimateSizeFactors } from "./size-factors.ts";
import { fitNbGlm, prepareGlmDesign } from "./nb-glm.ts";
import { estimateDispersions } from "./dispersions.ts";
import { waldTest } from "./wald.ts";
import { cooksCutoff, cooksDistances, robustDispersion, samplesInLargeCells } from "./cooks.ts";
import { benjaminiHochberg } from "../stats/multiple-testing.ts";

/** At or below this many residual degrees of freedom the dispersion prior is weak (§5.5). */
const LOW_RESIDUAL_DF = 3;

function checkInput(pb: PseudoBulk): void {
  const m = pb.samples.length;
  if (pb.counts.length !== pb.genes.length * m)
    throw new DeInputError(`counts has ${pb.counts.length} entries, expected ${pb.genes.length} × ${m}`);
  for (const v of pb.counts)
    if (!(v >= 0) || !Number.isFinite(v)) throw new DeInputError("counts must be finite and non-negative");
  if (!pb.samples.some((s) => s.arm === 0) || !pb.samples.some((s) => s.arm === 1))
    throw new DeInputError("both arms need at least one sample");
}

/**
 * Runs model.md §5.2–5.7 on a pseudo-bulk matrix: gene filter, size factors, dispersions,
 * Wald test of the perturbed-arm coefficient, Cook's cutoff and Benjamini–Hochberg.
 * Rows are the tested genes in input order (filtered genes and genes with only zero counts
 * are left out).
 * @throws JobFailure `insufficient_replicates` when the design leaves no residual degrees of freedom.
 */
export function runDifferentialExpression(pb: PseudoBulk, options: DeOptions): DeResult {
  checkInput(pb);
  const m = pb.samples.length;
  const design = buildDesign(pb.samples, options.paired);
  const { p } = design;
  if (m <= p)
    throw new JobFailure(
      "insufficient_replicates",
      `Differential expression needs more samples than model coefficients (${m} samples, ${p} coefficients for ${design.formula}). Add biological replicates to each condition.`,
    );
  const filter = (options.geneFilter ?? "filterByExpr") === "filterByExpr" ? filterByExpr(pb) : null;
  const tested: number[] = [];
  for (let g = 0; g < pb.genes.length; g++) {
    if (filter !== null && !filter.keep[g]) continue;
    let total = 0;
    for (let j = 0; j < m; j++) total += pb.counts[g * m + j]!;
    if (total > 0) tested.push(g);
  }
  const n = tested.length;
  const counts = new Float64Array(n * m);
  tested.forEach((g, i) => counts.set(pb.counts.subarray(g * m, (g + 1) * m), i * m));

  const { sizeFactors, method: sizeFactorMethod } = estimateSizeFactors(counts, n, m);
  const baseMean = new Float64Array(n);
  const baseVar = new Float64Array(n);
  for (let i = 0; i < n; i++) {
    let s = 0;
    for (let j = 0; j < m; j++) s += counts[i * m + j]! / sizeFactors[j]!;
    const mean = s / m;
    let v = 0;
    for (let j = 0; j < m; j++) v += (counts[i * m + j]! / sizeFactors[j]! - mean) ** 2;
    baseMean[i] = mean;
    baseVar[i] = v / (m - 1);
  }
  const glm = prepareGlmDesign(design.x, m, p);
  const disp = estimateDispersions({
    design,
    glm,
    counts,
    nGenes: n,
    sizeFactors,
    baseMean,
    baseVar,
    ...(options.dispPriorVar !== undefined ? { dispPriorVar: options.dispPriorVar } : {}),
  });

  // Cook's distances only count in cells with ≥ 3 samples, and only when m > p (DESeq2).
  const large = samplesInLargeCells(design, 3);
  const doCooks = large.some(Boolean);
  const cutoff = cooksCutoff(m, p);
  // DESeq2 spares genes whose outlier is a low count, only for a single two-level factor.
  const twoGroup = !options.paired;
  const c = design.conditionColumn;
  const rows: DeGeneRow[] = [];
  const nonConverged: string[] = [];
  const q = new Float64Array(m);
  for (let i = 0; i < n; i++) {
    const y = counts.subarray(i * m, (i + 1) * m);
    const fit = fitNbGlm(glm, y, sizeFactors, disp.final[i]!);
    const wald = waldTest(fit.beta[c]!, fit.betaVar[c]!);
    let pvalue: number | null = Number.isFinite(wald.pvalue) ? wald.pvalue : null;
    let maxCooks: number | null = null;
    if (doCooks) {
      for (let j = 0; j < m; j++) q[j] = y[j]! / sizeFactors[j]!;
      const cooks = cooksDistances(y, fit.mu, fit.hat, robustDispersion(q, design, large), p);
      let mx = Number.NEGATIVE_INFINITY;
      for (let j = 0; j < m; j++) if (large[j]) mx = Math.max(mx, cooks[j]!);
      maxCooks = mx;
      if (mx > cutoff) {
        let outlierSample = 0;
        for (let j = 1; j < m; j++) if (cooks[j]! > cooks[outlierSample]!) outlierSample = j;
        const larger = Array.from(y).filter((k) => k > y[outlierSample]!).length;
        if (!(twoGroup && larger >= 3)) pvalue = null;
      }
    }
    const gene = pb.genes[tested[i]!]!;
    if (!fit.converged) nonConverged.push(gene);
    rows.push({
      gene,
      base_mean: baseMean[i]!,
      log2FC: wald.log2FC,
      lfcSE: wald.lfcSE,
      stat: wald.stat,
      pvalue,
      padj: null,
      converged: fit.converged,
      disp_gene: disp.geneWise[i]!,
      disp_trend: disp.trend[i]!,
      disp_map: disp.map[i]!,
      dispersion: disp.final[i]!,
      disp_outlier: disp.outlier[i]!,
      max_cooks: maxCooks,
    });
  }
  const padj = benjaminiHochberg(rows.map((r) => r.pvalue));
  rows.forEach((r, i) => (r.padj = padj[i]!));

  const warnings: DeWarning[] = [];
  const residualDf = m - p;
  if (residualDf <= LOW_RESIDUAL_DF)
    warnings.push({
      code: "low_residual_df",
      residualDf,
      message: `Only ${residualDf} residual degree(s) of freedom: the dispersion prior is weakly estimated and p-values are less reliable; more replicates per condition help.`,
    });
  if (nonConverged.length > 0)
    warnings.push({
      code: "non_converged_genes",
      genes: nonConverged,
      message: `The GLM fit did not converge for ${nonConverged.length} gene(s); their statistics are from the last iteration.`,
    });
  if (disp.trendFallback)
    warnings.push({
      code: "dispersion_trend_fallback",
      message:
        "The parametric dispersion trend could not be fitted; a constant (trimmed-mean) trend was used.",
    });
  return {
    design: { formula: design.formula, columns: design.columns, paired: options.paired, residualDf },
    samples: pb.samples.map((s) => s.id),
    sizeFactors: Array.from(sizeFactors),
    sizeFactorMethod,
    filter,
    trend: disp.trendFit,
    dispPriorVar: disp.priorVar,
    dispPriorVarMethod: disp.priorVarMethod,
    logDispResidualSd: Math.sqrt(disp.varLogDispEsts),
    genes: rows,
    warnings,
  };
}
