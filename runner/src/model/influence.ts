/**
 * The influence matrix I, candidate sources S and baseline B of model.md §6.4–6.7. Column
 * blocks are independent, so worker threads share Q, R and the output via SharedArrayBuffer
 * and take blocks from an atomic counter; results do not depend on the thread count.
 */
import { availableParallelism } from "node:os";
import { Worker } from "node:worker_threads";
import { ZERO_BELOW, computeInfluenceBlock, type CsrArrays } from "./influence-kernel.ts";
import type { Csr } from "./transition.ts";

/** Progress of a long computation: `done` of `total` units. */
export type ProgressCallback = (done: number, total: number) => void;

/** Influence of every candidate source on every RNA node, with the uniform-source baseline. */
export interface InfluenceResult {
  /** Protein-layer index of each source in S (ascending, i.e. byte order of ids). */
  sourceProteins: Int32Array;
  nRna: number;
  /** I restricted to S, row-major |S| × |V_R|, float32. */
  influence: Float32Array;
  /** B(g) = mean over S of I(s,g), float64, summed from the stored float32 values. */
  baseline: Float64Array;
}

/** Options of the bundle computation. */
export interface InfluenceOptions {
  iterations: number;
  /** Worker threads; 1 computes on the calling thread. Default: available parallelism. */
  threads?: number;
  /** RNA columns per block (§6.7 suggests 256–1024). */
  blockSize?: number;
  /** Called after each finished column block. */
  onProgress?: ProgressCallback;
}

/** What a worker receives; all buffers are shared. */
export interface InfluenceWorkerData {
  q: { indptr: SharedArrayBuffer; indices: SharedArrayBuffer; data: SharedArrayBuffer };
  r: { indptr: SharedArrayBuffer; indices: SharedArrayBuffer; data: SharedArrayBuffer };
  nP: number;
  nR: number;
  blockSize: number;
  iterations: number;
  out: SharedArrayBuffer;
  counter: SharedArrayBuffer;
}

function share<T extends Int32Array | Float64Array>(a: T): SharedArrayBuffer {
  const sab = new SharedArrayBuffer(a.byteLength);
  new Uint8Array(sab).set(new Uint8Array(a.buffer, a.byteOffset, a.byteLength));
  return sab;
}

async function runWorkers(
  q: Csr,
  r: Csr,
  iterations: number,
  blockSize: number,
  threads: number,
  out: SharedArrayBuffer,
  onBlock: () => void,
): Promise<void> {
  const data: InfluenceWorkerData = {
    q: { indptr: share(q.indptr), indices: share(q.indices), data: share(q.data) },
    r: { indptr: share(r.indptr), indices: share(r.indices), data: share(r.data) },
    nP: q.nRows,
    nR: r.nCols,
    blockSize,
    iterations,
    out,
    counter: new SharedArrayBuffer(4),
  };
  const url = new URL("./influence-worker.ts", import.meta.url);
  await Promise.all(
    Array.from(
      { length: threads },
      () =>
        new Promise<void>((resolve, reject) => {
          const worker = new Worker(url, { workerData: data });
          worker.on("message", onBlock);
          worker.on("error", reject);
          worker.on("exit", (code) =>
            code === 0 ? resolve() : reject(new Error(`influence worker exited with code ${code}`)),
          );
        }),
    ),
  );
}

/** Computes I for every protein, keeps the rows of S (§6.5) and derives B. */
export async function computeInfluence(q: Csr, r: Csr, options: InfluenceOptions): Promise<InfluenceResult> {
  const nP = q.nRows;
  const nR = r.nCols;
  const blockSize = options.blockSize ?? 256;
  const nBlocks = Math.ceil(nR / blockSize);
  const threads = Math.max(1, Math.min(options.threads ?? availableParallelism(), nBlocks));
  const out = new SharedArrayBuffer(nP * nR * 4);
  const full = new Float32Array(out);
  let done = 0;
  const onBlock = (): void => options.onProgress?.(++done, nBlocks);
  if (threads === 1) {
    for (let b = 0; b < nBlocks; b++) {
      computeInfluenceBlock(
        q,
        r,
        nP,
        nR,
        b * blockSize,
        Math.min(nR, (b + 1) * blockSize),
        options.iterations,
        full,
      );
      onBlock();
    }
  } else {
    await runWorkers(q, r, options.iterations, blockSize, threads, out, onBlock);
  }
  return restrictToSources(full, nP, nR);
}

/** Keeps rows with positive total influence, in place, and computes B over them. */
function restrictToSources(full: Float32Array, nP: number, nR: number): InfluenceResult {
  const sources: number[] = [];
  for (let u = 0; u < nP; u++) {
    const row = full.subarray(u * nR, (u + 1) * nR);
    let reaches = false;
    for (let j = 0; j < nR && !reaches; j++) reaches = row[j]! > 0;
    if (!reaches) continue;
    // Rows only move towards the start, so the in-place copy never overwrites unread rows.
    if (sources.length !== u) full.copyWithin(sources.length * nR, u * nR, (u + 1) * nR);
    sources.push(u);
  }
  const influence = new Float32Array(sources.length * nR);
  influence.set(full.subarray(0, sources.length * nR));
  return {
    sourceProteins: Int32Array.from(sources),
    nRna: nR,
    influence,
    baseline: baselineOf(influence, sources.length, nR),
  };
}

/** B(g) = (1/|S|) Σ_s I(s,g), accumulated in float64 in source order. */
export function baselineOf(influence: Float32Array, nS: number, nR: number): Float64Array {
  const b = new Float64Array(nR);
  for (let s = 0; s < nS; s++) {
    const o = s * nR;
    for (let j = 0; j < nR; j++) b[j]! += influence[o + j]!;
  }
  for (let j = 0; j < nR; j++) b[j]! /= nS;
  return b;
}

/**
 * One row I(t,·) without a bundle (§6.7): y_0 = e_t, y_{k+1} = y_k Q, I = Σ_{k≤K} y_k R, in
 * float64; values below 1e-12 are set to 0 as in the bundle.
 */
export function influenceRow(
  q: CsrArrays,
  r: CsrArrays,
  nP: number,
  nR: number,
  protein: number,
  iterations: number,
): Float64Array {
  let y = new Float64Array(nP);
  let next = new Float64Array(nP);
  y[protein] = 1;
  const acc = new Float64Array(nR);
  for (let it = 0; it <= iterations; it++) {
    for (let u = 0; u < nP; u++) {
      const yu = y[u]!;
      if (yu === 0) continue;
      for (let k = r.indptr[u]!; k < r.indptr[u + 1]!; k++) acc[r.indices[k]!]! += yu * r.data[k]!;
    }
    if (it === iterations) break;
    next.fill(0);
    for (let u = 0; u < nP; u++) {
      const yu = y[u]!;
      if (yu === 0) continue;
      for (let k = q.indptr[u]!; k < q.indptr[u + 1]!; k++) next[q.indices[k]!]! += yu * q.data[k]!;
    }
    const t = y;
    y = next;
    next = t;
  }
  for (let j = 0; j < nR; j++) if (acc[j]! < ZERO_BELOW) acc[j] = 0;
  return acc;
}
