import { describe, expect, it } from "vitest";
import { Xoshiro128ss } from "../scoring/prng.ts";
import { computeInfluence, influenceRow } from "./influence.ts";
import { iterationCount } from "./influence-kernel.ts";
import type { Csr } from "./transition.ts";

/** A random sub-stochastic Q (nP × nP) and R (nP × nR) with rows summing to 1 − α. */
function randomWalk(nP: number, nR: number, seed: bigint): { q: Csr; r: Csr } {
  const rng = new Xoshiro128ss(seed);
  const rows = (nCols: number, self: boolean): number[][] =>
    Array.from({ length: nP }, (_, u) => {
      const cols = new Set<number>();
      const m = rng.nextBelow(5);
      for (let i = 0; i < m; i++) {
        const c = rng.nextBelow(nCols);
        if (self || c !== u) cols.add(c);
      }
      return [...cols].sort((a, b) => a - b);
    });
  const qCols = rows(nP, false);
  const rCols = rows(nR, true);
  const csr = (cols: number[][], nCols: number, other: number[][]): Csr => {
    const indptr = new Int32Array(nP + 1);
    cols.forEach((c, u) => (indptr[u + 1] = indptr[u]! + c.length));
    const data = new Float64Array(indptr[nP]!);
    cols.forEach((c, u) => c.forEach((_, i) => (data[indptr[u]! + i] = 0.5 / (c.length + other[u]!.length))));
    return { nRows: nP, nCols, indptr, indices: Int32Array.from(cols.flat()), data };
  };
  return { q: csr(qCols, nP, rCols), r: csr(rCols, nR, qCols) };
}

describe("influence computation (model.md §6.7)", () => {
  const { q, r } = randomWalk(400, 300, 7n);
  const iterations = iterationCount(0.5);

  it("uses K = 34 for α = 0.5", () => {
    expect(iterations).toBe(34);
  });

  it("gives identical bytes with 1 and 3 threads and any block size", async () => {
    const one = await computeInfluence(q, r, { iterations, threads: 1, blockSize: 16 });
    const three = await computeInfluence(q, r, { iterations, threads: 3, blockSize: 16 });
    const wide = await computeInfluence(q, r, { iterations, threads: 2, blockSize: 256 });
    expect(one.sourceProteins.length).toBeGreaterThan(100);
    expect(Buffer.from(three.influence.buffer).equals(Buffer.from(one.influence.buffer))).toBe(true);
    expect(Buffer.from(wide.influence.buffer).equals(Buffer.from(one.influence.buffer))).toBe(true);
    expect(Array.from(three.baseline)).toEqual(Array.from(one.baseline));
  });

  it("agrees with the single-row vector iteration to float32 precision", async () => {
    const res = await computeInfluence(q, r, { iterations, threads: 1 });
    for (const s of [0, 17, res.sourceProteins.length - 1]) {
      const row = influenceRow(q, r, q.nRows, r.nCols, res.sourceProteins[s]!, iterations);
      const stored = res.influence.subarray(s * r.nCols, (s + 1) * r.nCols);
      row.forEach((v, j) => expect(Math.abs(v - stored[j]!)).toBeLessThanOrEqual(Math.max(1e-12, 1e-7 * v)));
    }
  });

  it("keeps only proteins that reach the RNA layer and reports progress per block", async () => {
    const seen: number[] = [];
    const res = await computeInfluence(q, r, {
      iterations,
      threads: 2,
      blockSize: 100,
      onProgress: (d, n) => seen.push(d * 10 + n),
    });
    expect(seen.sort()).toEqual([13, 23, 33]);
    for (let s = 0; s < res.sourceProteins.length; s++) {
      expect(res.influence.subarray(s * r.nCols, (s + 1) * r.nCols).some((v) => v > 0)).toBe(true);
    }
  });
});
