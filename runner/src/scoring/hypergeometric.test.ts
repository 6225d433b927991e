import { describe, expect, it } from "vitest";
import { benjaminiHochbergDense as benjaminiHochberg } from "../stats/multiple-testing.ts";
import { choose, exactScore, log10Big } from "../../test/fixtures/scoring/exact-hypergeometric.ts";
import { hypergeomScore, hypergeomZ, logFactorials, logHypergeomUpperTail } from "./hypergeometric.ts";

describe("hypergeometric tail in log space (model.md §7.3)", () => {
  it.each([
    [1, 3, 2, 1],
    [3, 20, 7, 5],
    [0, 20, 7, 5],
    [5, 60, 12, 9],
    [9, 60, 12, 9],
    [40, 500, 80, 120],
    [114, 683, 260, 272],
    [19, 6037, 300, 125],
  ])("k=%i N=%i K=%i n=%i matches the exact BigInt value", (k, N, K, n) => {
    const lf = logFactorials(N);
    const expected = exactScore(k, N, K, n);
    expect(hypergeomScore(k, N, K, n, lf)).toBeCloseTo(expected, 10);
  });

  it("stays finite far below 1e-300", () => {
    const N = 20000;
    const lf = logFactorials(N);
    const score = hypergeomScore(1000, N, 1000, 1000, lf);
    expect(score).toBeGreaterThan(1000);
    expect(score).toBeCloseTo(log10Big(choose(N, 1000)), 8);
  });

  it("gives score 0 and probability 1 where the tail is the whole support", () => {
    const lf = logFactorials(10);
    expect(hypergeomScore(0, 10, 0, 3, lf)).toBe(0);
    expect(logHypergeomUpperTail(0, 10, 4, 3, lf)).toBe(0);
    expect(logHypergeomUpperTail(4, 10, 4, 3, lf)).toBe(-Infinity);
  });

  it.each([
    [1, 3, 2, 1, 0.7071068],
    [0, 3, 2, 1, -1.4142136],
    [0, 3, 0, 1, 0],
    [1, 3, 3, 1, 0],
  ])("analytic z(k=%i, N=%i, K=%i, n=%i) = %f (§8.1)", (k, N, K, n, z) => {
    expect(hypergeomZ(k, N, K, n)).toBeCloseTo(z, 7);
  });
});

describe("Benjamini–Hochberg", () => {
  it("matches R's p.adjust(method = 'BH')", () => {
    // p.adjust(c(0.01, 0.04, 0.03, 0.005, 0.5), "BH") = 0.025 0.05 0.05 0.025 0.5
    const q = benjaminiHochberg([0.01, 0.04, 0.03, 0.005, 0.5]);
    [0.025, 0.05, 0.05, 0.025, 0.5].forEach((v, i) => expect(q[i]).toBeCloseTo(v, 15));
  });
});
