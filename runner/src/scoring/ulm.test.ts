import normalCdf from "@stdlib/stats-base-dists-normal-cdf";
import { describe, expect, it } from "vitest";
import { toyModel } from "../../test/fixtures/model/toy.ts";
import normalQuantile from "@stdlib/stats-base-dists-normal-quantile";
import { ULM_MIN_DF, normalScores, ulmActivity } from "./ulm.ts";

describe("ULM TF activity", async () => {
  const model = await toyModel();
  const c = model.sourceIndex("C");
  // C regulates y (−) and z (+) in the toy network.
  const regulon = new Map([
    ["y", -1],
    ["z", 1],
  ]);
  it("gives a two-sided p-value only with enough residual degrees of freedom", () => {
    const small = ulmActivity(
      model,
      new Map([
        ["y", -2],
        ["z", 1.5],
        ["x", 0.3],
      ]),
      2,
    );
    expect(Number.isFinite(small.t[c]!)).toBe(true);
    expect(Number.isNaN(small.p[c]!)).toBe(true);

    // Measured genes outside the network enter the regression as non-targets (weight 0).
    const stat = new Map<string, number | null>([...regulon].map(([g, w]) => [g, 2 * w]));
    for (let i = 0; i < ULM_MIN_DF + 10; i++) stat.set(`pad${i}`, Math.sin(i));
    stat.set("x", null);
    const big = ulmActivity(model, stat, 2);
    expect(big.t[c]).toBeGreaterThan(0);
    expect(big.p[c]).toBeCloseTo(2 * normalCdf(-Math.abs(big.t[c]!), 0, 1), 14);
    const flipped = ulmActivity(model, new Map([...stat].map(([g, v]) => [g, v === null ? null : -v])), 2);
    expect(flipped.t[c]).toBeCloseTo(-big.t[c]!, 12);
    expect(flipped.p[c]).toBeCloseTo(big.p[c]!, 14);
  });
  it("leaves sources with too few measured signed targets without a value", () => {
    const res = ulmActivity(model, new Map([["y", 1]]), 2);
    expect(Number.isNaN(res.t[c]!)).toBe(true);
    expect(Number.isNaN(res.t[model.sourceIndex("A")]!)).toBe(true);
  });
});

describe("normal scores", () => {
  it("are the normal quantiles of the mid-ranks, so ties share a score and order is kept", () => {
    const z = normalScores([3, -100, 3, 1e6]);
    expect(z[1]).toBeCloseTo(normalQuantile(0.5 / 4, 0, 1), 14);
    expect(z[0]).toBe(z[2]);
    expect(z[0]).toBeCloseTo(normalQuantile(2 / 4, 0, 1), 14);
    expect(z[3]).toBeCloseTo(normalQuantile(3.5 / 4, 0, 1), 14);
  });
  it("make ULM insensitive to a monotone rescaling of the statistic", async () => {
    const model = await toyModel();
    const stat = new Map<string, number>([
      ["y", -2],
      ["z", 1.5],
      ["x", 0.3],
    ]);
    for (let i = 0; i < 20; i++) stat.set(`pad${i}`, Math.sin(i));
    const cubed = new Map([...stat].map(([g, v]) => [g, v ** 3]));
    const c = model.sourceIndex("C");
    const a = ulmActivity(model, stat, 2, true).t[c]!;
    expect(ulmActivity(model, cubed, 2, true).t[c]).toBeCloseTo(a, 12);
    expect(ulmActivity(model, cubed, 2).t[c]).not.toBeCloseTo(a, 3);
  });
});
