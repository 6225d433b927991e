import { describe, expect, it } from "vitest";
import { Xoshiro128ss, seedFrom } from "./prng.ts";

describe("xoshiro128** seeded from SHA-256 (model.md §8.2)", () => {
  it("derives the seed from the first 8 bytes of SHA-256", () => {
    // sha256("abc") = ba7816bf8f01cfea414140de5dae2223...
    expect(seedFrom("abc")).toEqual({ seed: 0xba7816bf8f01cfean, seedHex: "ba7816bf8f01cfea" });
  });

  it("matches the reference xoshiro128** sequence for a known state", () => {
    // Reference C implementation (prng.di.unimi.it/xoshiro128starstar.c) from s = {1, 2, 3, 4}.
    const g = new Xoshiro128ss(0n);
    Object.assign(g, { s0: 1, s1: 2, s2: 3, s3: 4 });
    expect(Array.from({ length: 4 }, () => g.nextUint32())).toEqual([11520, 0, 5927040, 70819200]);
  });

  it("is reproducible and draws bounded integers uniformly", () => {
    const a = new Xoshiro128ss(seedFrom("p/IFNB.").seed);
    const b = new Xoshiro128ss(seedFrom("p/IFNB.").seed);
    const xs = Array.from({ length: 60000 }, () => a.nextBelow(6));
    expect(Array.from({ length: 60000 }, () => b.nextBelow(6))).toEqual(xs);
    const counts = [0, 0, 0, 0, 0, 0];
    for (const x of xs) counts[x]!++;
    for (const c of counts) expect(Math.abs(c - 10000)).toBeLessThan(400);
  });
});
