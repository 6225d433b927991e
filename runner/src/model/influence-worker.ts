/**
 * Worker thread of the influence computation: takes column blocks from a shared counter until
 * none are left and writes them into the shared output matrix.
 */
import { parentPort, workerData } from "node:worker_threads";
import { computeInfluenceBlock } from "./influence-kernel.ts";
import type { InfluenceWorkerData } from "./influence.ts";

const d = workerData as InfluenceWorkerData;
const q = {
  indptr: new Int32Array(d.q.indptr),
  indices: new Int32Array(d.q.indices),
  data: new Float64Array(d.q.data),
};
const r = {
  indptr: new Int32Array(d.r.indptr),
  indices: new Int32Array(d.r.indices),
  data: new Float64Array(d.r.data),
};
const out = new Float32Array(d.out);
const counter = new Int32Array(d.counter);
const nBlocks = Math.ceil(d.nR / d.blockSize);
for (;;) {
  const b = Atomics.add(counter, 0, 1);
  if (b >= nBlocks) break;
  const start = b * d.blockSize;
  computeInfluenceBlock(q, r, d.nP, d.nR, start, Math.min(d.nR, start + d.blockSize), d.iterations, out);
  parentPort?.postMessage({ block: b });
}
