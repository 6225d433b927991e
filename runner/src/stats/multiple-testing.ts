/**
 * Multiple-testing corrections shared by differential expression (model.md §5.7) and target
 * scoring (§7.7): one Benjamini–Hochberg step-up, and Benjamini–Yekutieli built on it.
 */

/**
 * Benjamini–Hochberg adjusted p-values over the non-null, non-NaN entries, as R's
 * `p.adjust(method = "BH")`: `padj_(i) = min_{j ≥ i} M p_(j) / j`, capped at 1. Skipped entries
 * stay null.
 */
export function benjaminiHochberg(p: readonly (number | null)[]): (number | null)[] {
  const idx: number[] = [];
  p.forEach((v, i) => {
    if (v !== null && !Number.isNaN(v)) idx.push(i);
  });
  // Stable order by p; ties keep input order, which does not change the adjusted values.
  idx.sort((a, b) => p[a]! - p[b]! || a - b);
  const n = idx.length;
  const out: (number | null)[] = p.map(() => null);
  let running = 1;
  for (let r = n - 1; r >= 0; r--) {
    const i = idx[r]!;
    running = Math.min(running, (n / (r + 1)) * p[i]!);
    out[i] = Math.min(running, 1);
  }
  return out;
}

/** Benjamini–Hochberg over a dense vector of p-values (every entry a number), as a Float64Array. */
export function benjaminiHochbergDense(p: ArrayLike<number>): Float64Array {
  return Float64Array.from(benjaminiHochberg(Array.from(p)), (q) => q ?? NaN);
}

/**
 * Benjamini–Yekutieli adjusted p-values (FDR control under arbitrary dependence): BH's step-up
 * with every p multiplied by the harmonic number H_M = Σ_{i≤M} 1/i. Models v2 and v3 report these
 * as `qvalue`: candidate tests share regulons and walk mass (and proxies share their hub's
 * evidence), so BH's independence assumption does not hold.
 */
export function benjaminiYekutieli(p: ArrayLike<number>): Float64Array {
  const m = p.length;
  let harmonic = 0;
  for (let i = 1; i <= m; i++) harmonic += 1 / i;
  return benjaminiHochbergDense(Array.from(p, (v) => v * harmonic));
}
