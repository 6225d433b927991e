/**
 * Types shared by the differential-expression steps (model.md §5). The pseudo-bulk matrix is
 * built by runner/src/inputs from the uploaded AnnData and consumed here.
 */

/** One pseudo-bulk (or bulk) sample. */
export interface PseudoBulkSample {
  id: string;
  /** 0 = control arm, 1 = perturbed arm. */
  arm: 0 | 1;
  /** Donor id for paired designs; null when unknown. */
  donor: string | null;
  /** Cells summed into this sample (1 for bulk observations). */
  nCells: number;
}

/** Summed raw counts per gene and sample (model.md §4). */
export interface PseudoBulk {
  genes: string[];
  samples: PseudoBulkSample[];
  /** Gene-major: `counts[g * samples.length + j]`. */
  counts: Float64Array;
}

/** Design choice: paired is `~ donor + condition`, otherwise `~ condition` (treatment coding). */
export interface DesignOptions {
  paired: boolean;
}

/** Options of {@link runDifferentialExpression}. */
export interface DeOptions extends DesignOptions {
  /**
   * Gene filter before fitting; `filterByExpr` is the model (§5.2). `none` keeps every gene
   * with a non-zero count, which is what a plain `DESeq()` call does (used for parity tests).
   */
  geneFilter?: "filterByExpr" | "none";
  /**
   * Fixes the dispersion prior variance σ_d² instead of estimating it, as DESeq2's
   * `estimateDispersionsMAP(dispPriorVar =)` does. Only for reproducing a reference run.
   */
  dispPriorVar?: number;
}

/** The model matrix and what was derived from it. */
export interface Design {
  /** Row-major `m × p`. */
  x: Float64Array;
  m: number;
  p: number;
  columns: string[];
  /** Index of the perturbed-arm coefficient (always the last column). */
  conditionColumn: number;
  /** `~ donor + condition` or `~ condition`. */
  formula: string;
  /** Cell (distinct design row) of each sample. */
  cellOfSample: Int32Array;
  nCells: number;
}

/** Result of edgeR's `filterByExpr` rule (model.md §5.2). */
export interface FilterResult {
  keep: boolean[];
  nKept: number;
  cpmCutoff: number;
  minSampleSize: number;
  medianLibSize: number;
}

/** Fitted dispersion trend `α_tr(μ̄) = a0 + a1/μ̄`, or a constant when the fit failed. */
export type DispersionTrend =
  { kind: "parametric"; asymptDisp: number; extraPois: number } | { kind: "mean"; value: number };

/** One tested gene. Numbers are null where DESeq2 reports NA. */
export interface DeGeneRow {
  gene: string;
  base_mean: number;
  log2FC: number;
  lfcSE: number;
  stat: number;
  pvalue: number | null;
  padj: number | null;
  /** IRLS of the final fit converged. */
  converged: boolean;
  disp_gene: number;
  disp_trend: number;
  disp_map: number;
  dispersion: number;
  disp_outlier: boolean;
  /** Largest Cook's distance over the samples it is computed for, null when not computed. */
  max_cooks: number | null;
}

export type DeWarning =
  | { code: "low_residual_df"; residualDf: number; message: string }
  | { code: "non_converged_genes"; genes: string[]; message: string }
  | { code: "dispersion_trend_fallback"; message: string };

/** Everything `runDifferentialExpression` computed, for the artifacts and the metadata. */
export interface DeResult {
  design: { formula: string; columns: string[]; paired: boolean; residualDf: number };
  samples: string[];
  sizeFactors: number[];
  sizeFactorMethod: "ratio" | "poscounts";
  filter: FilterResult | null;
  trend: DispersionTrend;
  /** Prior variance of log dispersions σ_d² and how it was obtained. */
  dispPriorVar: number;
  dispPriorVarMethod: "mad" | "kl-matching" | "given";
  /** 1.4826 · MAD of log residuals (the outlier rule's scale). */
  logDispResidualSd: number;
  genes: DeGeneRow[];
  warnings: DeWarning[];
}
