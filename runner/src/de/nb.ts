import gammaln from "@stdlib/math-base-special-gammaln";

/**
 * Negative-binomial log-likelihood `Σ_j log P(K_j | μ_j, α)` with `Var = μ + α μ²`
 * (model.md §5.4). `y` and `mu` are one gene's counts and means.
 */
export function nbLogLik(y: ArrayLike<number>, mu: ArrayLike<number>, alpha: number): number {
  const size = 1 / alpha;
  let ll = 0;
  for (let j = 0; j < y.length; j++) {
    const k = y[j]!;
    const u = mu[j]!;
    // size·log(size/(size+μ)) written as −size·log1p(αμ) keeps precision for tiny α.
    ll +=
      gammaln(k + size) -
      gammaln(size) -
      gammaln(k + 1) -
      size * Math.log1p(alpha * u) +
      (k > 0 ? k * (Math.log(u) - Math.log(size + u)) : 0);
  }
  return ll;
}
