/**
 * Parameter-free combinations of several p-values about one hypothesis ("this candidate
 * explains the DEGs"). Both stay valid when the p-values are positively dependent, which the
 * evidence of model v2 is (a TF's direct targets are also among its propagated targets), unlike
 * Fisher's method, which assumes independence and is anti-conservative here.
 */

/** Combination rules of model v2. */
export type CombineRule = "simes" | "cauchy" | "truncated_cauchy";

/** Simes (1986): min_i m·p_(i)/i; valid under positive regression dependence. */
export function simes(ps: readonly number[]): number {
  const m = ps.length;
  if (m === 0) return 1;
  const s = [...ps].sort((a, b) => a - b);
  let best = 1;
  for (let i = 0; i < m; i++) best = Math.min(best, (m * s[i]!) / (i + 1));
  return best;
}

// tan((0.5 − p)π) is ±∞ at p ∈ {0, 1}; the clamp keeps one p = 1 (no overlap at all) from
// erasing every other piece of evidence, and tiny p use the series 1/(πp), exact to 1e-16 there.
const P_MIN = 1e-300;
const P_MAX = 1 - 1e-12;

/**
 * Cauchy combination (ACAT; Liu & Xie 2020) with equal weights; valid under arbitrary dependence
 * asymptotically (for small combined p). `truncated`: every p above 1/2 (the Cauchy's median)
 * contributes 0 instead of a negative term, so an uninformative piece of evidence (p near 1)
 * cannot cancel a strong one. The upper tail of the statistic, where ACAT's validity holds, is
 * unchanged; one small p among m with the others above 1/2 combines to about m·p (Bonferroni),
 * and the combined p never exceeds 1/2.
 */
export function cauchy(ps: readonly number[], truncated = false): number {
  const m = ps.length;
  if (m === 0) return 1;
  let t = 0;
  for (const raw of ps) {
    const p = Math.min(truncated ? 0.5 : P_MAX, Math.max(P_MIN, raw));
    t += p < 1e-15 ? 1 / (p * Math.PI) : Math.tan((0.5 - p) * Math.PI);
  }
  t /= m;
  // Upper tail of the standard Cauchy; for large t use 1/(πt) to keep precision.
  const p = t > 1e15 ? 1 / (t * Math.PI) : 0.5 - Math.atan(t) / Math.PI;
  return Math.min(1, Math.max(0, p));
}

/** The rule by name. */
export function combine(rule: CombineRule, ps: readonly number[]): number {
  return rule === "simes" ? simes(ps) : cauchy(ps, rule === "truncated_cauchy");
}
