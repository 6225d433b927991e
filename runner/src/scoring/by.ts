/**
 * Benjamini–Yekutieli adjusted p-values (FDR control under arbitrary dependence): BH's step-up
 * with every p multiplied by the harmonic number H_M = Σ_{i≤M} 1/i. Model v2 reports these as
 * `qvalue`: candidate tests share regulons and walk mass (and proxies share their hub's
 * evidence), and on null inputs BH still flagged candidates at q < 0.05 (npm run validate).
 */
import { benjaminiHochberg } from "./bh.ts";

export function benjaminiYekutieli(p: ArrayLike<number>): Float64Array {
  const m = p.length;
  let harmonic = 0;
  for (let i = 1; i <= m; i++) harmonic += 1 / i;
  const q = benjaminiHochberg(Array.from(p, (v) => v * harmonic));
  for (let i = 0; i < m; i++) q[i] = Math.min(1, q[i]!);
  return q;
}
