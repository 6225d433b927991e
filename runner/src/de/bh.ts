/**
 * Benjamini–Hochberg adjusted p-values over the non-null entries, as R's
 * `p.adjust(method = "BH")`: `padj_(i) = min_{j ≥ i} M p_(j) / j`, capped at 1 (model.md §5.7).
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
