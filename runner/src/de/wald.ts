import normalCdf from "@stdlib/stats-base-dists-normal-cdf";

/** Wald statistic and two-sided normal p-value of one coefficient (model.md §5.6). */
export interface WaldResult {
  log2FC: number;
  lfcSE: number;
  stat: number;
  pvalue: number;
}

/**
 * `stat = β/SE`, `p = 2Φ(−|stat|)` with DESeq2's default normal reference; the coefficient
 * and its variance are on the natural-log scale, the fold change is reported in log2.
 */
export function waldTest(beta: number, variance: number): WaldResult {
  const se = Math.sqrt(Math.max(variance, 0));
  const stat = beta / se;
  return {
    log2FC: beta / Math.LN2,
    lfcSE: se / Math.LN2,
    stat,
    pvalue: 2 * normalCdf(-Math.abs(stat), 0, 1),
  };
}
