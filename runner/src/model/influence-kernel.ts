/**
 * The column-block kernel of model.md §6.7, shared by the main thread and the worker threads.
 * Plain loops over typed arrays: no maintained npm package does sparse × dense-block products
 * in float64 without native code, and this loop is the measured reference of §15.2.
 */

/** CSR arrays as plain typed arrays (they may live on SharedArrayBuffers). */
export interface CsrArrays {
  indptr: Int32Array;
  indices: Int32Array;
  data: Float64Array;
}

/** Values below this are set to exactly 0 (treated as unreachable, §6.7). */
export const ZERO_BELOW = 1e-12;
/** Absolute truncation tolerance of the series (§6.7). */
export const TOLERANCE = 1e-10;

/** Iterations K = ceil(ln(tolerance) / ln(1 − α)) of the a-priori stopping rule (§6.7). */
export function iterationCount(alpha: number, tolerance = TOLERANCE): number {
  return Math.ceil(Math.log(tolerance) / Math.log(1 - alpha));
}

/**
 * Computes columns [colStart, colEnd) of I = Σ_{k=0..K} Q^k R by Z_{k+1} = Q Z_k + R from
 * Z_0 = R (float64), and writes them as float32 into the row-major nP × nR matrix `out`.
 * Each output value depends only on its own column block, in a fixed summation order, so the
 * result is identical whichever thread computes the block.
 */
export function computeInfluenceBlock(
  q: CsrArrays,
  r: CsrArrays,
  nP: number,
  nR: number,
  colStart: number,
  colEnd: number,
  iterations: number,
  out: Float32Array,
): void {
  const bw = colEnd - colStart;
  const r0 = new Float64Array(nP * bw);
  for (let u = 0; u < nP; u++) {
    for (let k = r.indptr[u]!; k < r.indptr[u + 1]!; k++) {
      const c = r.indices[k]!;
      if (c >= colStart && c < colEnd) r0[u * bw + c - colStart] = r.data[k]!;
    }
  }
  // Rows known to be all zero are skipped: adding w·0 changes nothing, so the result is the
  // same bit for bit, and in a column block most proteins reach few of its genes.
  const r0Live = new Uint8Array(nP);
  for (let u = 0; u < nP; u++)
    for (let j = 0; j < bw && r0Live[u] === 0; j++) r0Live[u] = r0[u * bw + j] !== 0 ? 1 : 0;
  let z = Float64Array.from(r0);
  let next = new Float64Array(nP * bw);
  let live = Uint8Array.from(r0Live);
  let nextLive = new Uint8Array(nP);
  const { indptr, indices, data } = q;
  for (let it = 0; it < iterations; it++) {
    for (let u = 0; u < nP; u++) {
      const base = u * bw;
      let rowLive = r0Live[u]!;
      if (rowLive === 1) for (let j = 0; j < bw; j++) next[base + j] = r0[base + j]!;
      else next.fill(0, base, base + bw);
      for (let k = indptr[u]!, end = indptr[u + 1]!; k < end; k++) {
        const v = indices[k]!;
        if (live[v] === 0) continue;
        rowLive = 1;
        const w = data[k]!;
        const vb = v * bw;
        for (let j = 0; j < bw; j++) next[base + j] += w * z[vb + j]!;
      }
      nextLive[u] = rowLive;
    }
    const t = z;
    z = next;
    next = t;
    const tl = live;
    live = nextLive;
    nextLive = tl;
  }
  for (let u = 0; u < nP; u++) {
    const base = u * bw;
    const o = u * nR + colStart;
    for (let j = 0; j < bw; j++) {
      const v = z[base + j]!;
      out[o + j] = v < ZERO_BELOW ? 0 : v;
    }
  }
}
