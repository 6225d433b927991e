/** Benjamini–Hochberg adjusted p-values: q_(i) = min_{j≥i} M p_(j) / j, capped at 1. */
export function benjaminiHochberg(p: ArrayLike<number>): Float64Array {
  const m = p.length;
  const order = Array.from({ length: m }, (_, i) => i).sort((a, b) => p[a]! - p[b]! || a - b);
  const q = new Float64Array(m);
  let running = 1;
  for (let r = m - 1; r >= 0; r--) {
    const i = order[r]!;
    running = Math.min(running, (m * p[i]!) / (r + 1));
    q[i] = running;
  }
  return q;
}
