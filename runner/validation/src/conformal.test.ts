import { describe, expect, it } from "vitest";
import { conformalTau } from "./conformal.ts";

describe("conformalTau", () => {
  const scores = Array.from({ length: 19 }, (_, i) => (i + 1) / 20);

  it("is the usual split-conformal quantile when every case is its own group", () => {
    // ⌈(19 + 1) · 0.9⌉ = 18th smallest of 0.05 … 0.95.
    expect(conformalTau(scores, scores.map(String), 0.1)).toBeCloseTo(0.9);
  });

  it("weighs every split group the same, however many cases it has", () => {
    // Ten easy cases of one group and nine hard ones of nine groups: by cases the hard ones are
    // under half the calibration, by groups nine tenths of it.
    const easy = Array.from({ length: 10 }, () => 0.01);
    const hard = [0.5, 0.55, 0.6, 0.65, 0.7, 0.75, 0.8, 0.85, 0.9];
    const all = [...easy, ...hard];
    const eachItsOwn = all.map((_, i) => `case ${i}`);
    const grouped = [...easy.map(() => "one ligand"), ...hard.map((_, i) => `ligand ${i}`)];
    // 19 groups, level 0.8 · 20/19: the 16th smallest.
    expect(conformalTau(all, eachItsOwn, 0.2)).toBeCloseTo(0.75);
    // 10 groups, level 0.8 · 1.1 = 0.88: the easy group (0.1) and eight hard ones (0.8).
    expect(conformalTau(all, grouped, 0.2)).toBeCloseTo(0.85);
    expect(conformalTau(all, grouped, 0.1)).toBeCloseTo(0.9);
  });

  it("gives the whole list (1) when there are too few groups for the level", () => {
    expect(conformalTau([0.2, 0.3, 0.4], ["a", "a", "b"], 0.1)).toBe(1);
    expect(conformalTau([], [], 0.1)).toBe(1);
  });
});
