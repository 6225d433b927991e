/**
 * Dense linear algebra for the tiny systems of the GLM (p ≤ ~20 coefficients, m ≤ a few
 * dozen samples). Hand-written because each call is a few hundred flops: a library's call
 * overhead would dominate, and Cholesky on a symmetric positive-definite p × p matrix is
 * numerically adequate for these well-conditioned 0/1 designs.
 * Matrices are row-major Float64Arrays.
 */

/**
 * Cholesky factorization in place: the lower triangle of `a` becomes L (the upper triangle
 * is left as it was). Returns false when `a` is not positive definite. The one factorization
 * loop: the variants below copy or read its result.
 */
export function choleskyInPlace(a: Float64Array, p: number): boolean {
  for (let i = 0; i < p; i++) {
    for (let j = 0; j <= i; j++) {
      let s = a[i * p + j]!;
      for (let k = 0; k < j; k++) s -= a[i * p + k]! * a[j * p + k]!;
      if (i === j) {
        if (!(s > 0)) return false;
        a[i * p + i] = Math.sqrt(s);
      } else {
        a[i * p + j] = s / a[j * p + j]!;
      }
    }
  }
  return true;
}

/** Lower Cholesky factor of the SPD matrix `a` (p × p), or null when `a` is not positive definite. */
export function cholesky(a: Float64Array, p: number): Float64Array | null {
  const l = Float64Array.from(a.subarray(0, p * p));
  if (!choleskyInPlace(l, p)) return null;
  for (let i = 0; i < p; i++) l.fill(0, i * p + i + 1, (i + 1) * p);
  return l;
}

/**
 * log det of the SPD matrix `a`, factorizing it in place (its contents are destroyed);
 * −∞ when `a` is not positive definite.
 */
export function spdLogDetInPlace(a: Float64Array, p: number): number {
  if (!choleskyInPlace(a, p)) return Number.NEGATIVE_INFINITY;
  let logDet = 0;
  for (let i = 0; i < p; i++) logDet += 2 * Math.log(a[i * p + i]!);
  return logDet;
}

/** Solves `L Lᵀ x = b` in place (`b` becomes x), L in the lower triangle of `l`. */
export function choleskySolveInPlace(l: Float64Array, p: number, x: Float64Array): void {
  for (let i = 0; i < p; i++) {
    let s = x[i]!;
    for (let k = 0; k < i; k++) s -= l[i * p + k]! * x[k]!;
    x[i] = s / l[i * p + i]!;
  }
  for (let i = p - 1; i >= 0; i--) {
    let s = x[i]!;
    for (let k = i + 1; k < p; k++) s -= l[k * p + i]! * x[k]!;
    x[i] = s / l[i * p + i]!;
  }
}

/** Solves `L Lᵀ x = b` in place of a copy of `b`. */
export function choleskySolve(l: Float64Array, p: number, b: Float64Array): Float64Array {
  const x = Float64Array.from(b);
  choleskySolveInPlace(l, p, x);
  return x;
}

/** Inverse of an SPD matrix from its Cholesky factor. */
export function choleskyInverse(l: Float64Array, p: number): Float64Array {
  const inv = new Float64Array(p * p);
  const e = new Float64Array(p);
  for (let c = 0; c < p; c++) {
    e.fill(0);
    e[c] = 1;
    const col = choleskySolve(l, p, e);
    for (let r = 0; r < p; r++) inv[r * p + c] = col[r]!;
  }
  return inv;
}

/** `Xᵀ diag(w) X` for row-major `x` (m × p). */
export function crossprodWeighted(x: Float64Array, m: number, p: number, w: ArrayLike<number>): Float64Array {
  return crossprodWeightedInto(new Float64Array(p * p), x, m, p, w);
}

/** {@link crossprodWeighted} into a caller-owned buffer (hot loops avoid allocating). */
export function crossprodWeightedInto(
  out: Float64Array,
  x: Float64Array,
  m: number,
  p: number,
  w: ArrayLike<number>,
): Float64Array {
  out.fill(0, 0, p * p);
  for (let j = 0; j < m; j++) {
    const wj = w[j]!;
    const row = j * p;
    for (let a = 0; a < p; a++) {
      const xa = x[row + a]! * wj;
      if (xa === 0) continue;
      for (let b = 0; b <= a; b++) out[a * p + b]! += xa * x[row + b]!;
    }
  }
  for (let a = 0; a < p; a++) for (let b = 0; b < a; b++) out[b * p + a] = out[a * p + b]!;
  return out;
}

/**
 * The least-squares operator `(XᵀX)⁻¹Xᵀ` (p × m) of a full-rank design, so that fitted
 * coefficients of any response vector are one small matrix-vector product.
 */
export function leastSquaresOperator(x: Float64Array, m: number, p: number): Float64Array {
  const ones = new Float64Array(m).fill(1);
  const l = cholesky(crossprodWeighted(x, m, p, ones), p);
  if (l === null) throw new RangeError("design matrix is not of full rank");
  const inv = choleskyInverse(l, p);
  const op = new Float64Array(p * m);
  for (let a = 0; a < p; a++)
    for (let j = 0; j < m; j++) {
      let s = 0;
      for (let b = 0; b < p; b++) s += inv[a * p + b]! * x[j * p + b]!;
      op[a * m + j] = s;
    }
  return op;
}
