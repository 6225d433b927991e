/**
 * The right-tailed hypergeometric probability of model.md §7.3 in log space, and the
 * standardized hypergeometric count of §8.1.
 */
import gammaln from "@stdlib/math-base-special-gammaln";

/** ln(i!) for i = 0..max, from the library's log-gamma, so every term is a table look-up. */
export function logFactorials(max: number): Float64Array {
  const t = new Float64Array(max + 1);
  for (let i = 0; i <= max; i++) t[i] = gammaln(i + 1);
  return t;
}

/**
 * ln P[Hypergeometric(N, K, n) >= k] = ln Σ_{j=k}^{min(n,K)} C(K,j) C(N−K,n−j) / C(N,n), by
 * log-sum-exp over log-gamma terms, so that it stays finite far below 1e-300. `lf` must cover N.
 */
export function logHypergeomUpperTail(k: number, N: number, K: number, n: number, lf: Float64Array): number {
  const lo = Math.max(k, 0, n - (N - K));
  const hi = Math.min(n, K);
  if (lo > hi) return -Infinity;
  if (lo === Math.max(0, n - (N - K))) return 0;
  const lchoose = (a: number, b: number): number => lf[a]! - lf[b]! - lf[a - b]!;
  const denom = lchoose(N, n);
  let max = -Infinity;
  const terms = new Float64Array(hi - lo + 1);
  for (let j = lo; j <= hi; j++) {
    const t = lchoose(K, j) + lchoose(N - K, n - j) - denom;
    terms[j - lo] = t;
    if (t > max) max = t;
  }
  let sum = 0;
  for (let i = 0; i < terms.length; i++) sum += Math.exp(terms[i]! - max);
  return Math.min(0, max + Math.log(sum));
}

/** `score = −log10 p_hyp` (§7.3); 0 when K = 0. Never negative. */
export function hypergeomScore(k: number, N: number, K: number, n: number, lf: Float64Array): number {
  if (K === 0) return 0;
  const s = -logHypergeomUpperTail(k, N, K, n, lf) / Math.LN10;
  return s > 0 ? s : 0;
}

/** (k − nK/N) / sqrt(n (K/N)(1 − K/N)(N − n)/(N − 1)); 0 when K ∈ {0, N} (§8.1). */
export function hypergeomZ(k: number, N: number, K: number, n: number): number {
  if (K === 0 || K === N || N <= 1) return 0;
  const p = K / N;
  const variance = (n * p * (1 - p) * (N - n)) / (N - 1);
  return variance > 0 ? (k - n * p) / Math.sqrt(variance) : 0;
}
