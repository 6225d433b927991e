import { describe, expect, it } from "vitest";
import { Xoshiro128ss } from "./prng.ts";
import { randomize, type SignificanceIndicator } from "./randomization.ts";
import { buildStrata, quantileBins, type StratumGroup } from "./strata.ts";

/** A random gene-major indicator with `nS` sources over `m` genes, and each source's K. */
function randomIndicator(m: number, nS: number, seed: bigint): { ind: SignificanceIndicator; K: Int32Array } {
  const rng = new Xoshiro128ss(seed);
  const stride = (nS + 3) & ~3;
  const bytes = new Uint8Array(m * stride);
  const K = new Int32Array(nS);
  for (let g = 0; g < m; g++) {
    for (let s = 0; s < nS; s++) {
      if (rng.nextBelow(3) === 0) {
        bytes[g * stride + s] = 1;
        K[s]!++;
      }
    }
  }
  return { ind: { nS, stride, bytes }, K };
}

describe("randomization counting (model.md §8.2)", () => {
  it("counts exactly through the 4-lane byte adds, including the flush after 255 genes", () => {
    const m = 600;
    const { ind, K } = randomIndicator(m, 7, 3n);
    // One group that must draw every gene: each random set is the whole universe, so k_{s,r} = K_s.
    const groups: StratumGroup[] = [
      { strata: [0], genes: Int32Array.from({ length: m }, (_, i) => i), nDegs: m },
    ];
    const observed = Int32Array.from(K, (k, s) => (s % 2 === 0 ? k : k + 1));
    const res = randomize(ind, groups, observed, 5, "seed/");
    expect(Array.from(res.mean)).toEqual(Array.from(K));
    expect(Array.from(res.sd)).toEqual(new Array(7).fill(0));
    expect(res.z).toEqual(new Array(7).fill(null));
    expect(Array.from(res.nGe)).toEqual([5, 0, 5, 0, 5, 0, 5]);
    expect(Array.from(res.pvalue)).toEqual([1, 1 / 6, 1, 1 / 6, 1, 1 / 6, 1]);
  });

  it("is reproducible per seed and changes with it", () => {
    const { ind } = randomIndicator(400, 50, 9n);
    const groups = buildStrata(
      Float64Array.from({ length: 400 }, (_, i) => 1e-6 * (1 + (i % 37))),
      Array.from({ length: 400 }, (_, i) => (i % 5 === 0 ? null : i / 10)),
      Uint8Array.from({ length: 400 }, (_, i) => (i % 9 === 0 ? 1 : 0)),
    );
    const observed = new Int32Array(50).fill(10);
    const a = randomize(ind, groups, observed, 100, "p1/");
    const b = randomize(ind, groups, observed, 100, "p1/");
    const c = randomize(ind, groups, observed, 100, "p2/");
    expect(Array.from(b.pvalue)).toEqual(Array.from(a.pvalue));
    expect(Array.from(c.mean)).not.toEqual(Array.from(a.mean));
    // The expected count of a random set equals the DEG-weighted share of each stratum's hits.
    for (const v of a.mean) expect(v).toBeGreaterThan(0);
  });
});

describe("strata (model.md §8.2)", () => {
  it("bins by rank with ties in one bin", () => {
    expect(Array.from(quantileBins([5, 1, 1, 3, 9, 7, 2, 2, 8, 4], 5))).toEqual([
      3, 0, 0, 2, 4, 3, 1, 1, 4, 2,
    ]);
  });

  it("crosses B deciles with expression quintiles plus a bin for unmeasured genes", () => {
    const m = 100;
    const baseline = Float64Array.from({ length: m }, (_, i) => 1e-7 * (i + 1));
    const expression = Array.from({ length: m }, (_, i) => (i % 4 === 0 ? null : (i * 7919) % 101));
    const isDeg = Uint8Array.from({ length: m }, (_, i) => (i % 3 === 0 ? 1 : 0));
    const groups = buildStrata(baseline, expression, isDeg);
    expect(groups.reduce((s, g) => s + g.genes.length, 0)).toBe(m);
    expect(groups.reduce((s, g) => s + g.nDegs, 0)).toBe(34);
    // DEGs are a subset of the universe, so no stratum is short of genes and none is merged.
    for (const g of groups) {
      expect(g.strata).toHaveLength(1);
      expect(g.genes.length).toBeGreaterThanOrEqual(g.nDegs);
    }
    // Unmeasured genes (every 4th) sit in expression bin 5 of their B decile.
    const unmeasured = groups.filter((g) => g.strata[0]! % 6 === 5);
    expect(unmeasured.reduce((s, g) => s + g.genes.length, 0)).toBe(25);
  });
});
