import { describe, expect, it } from "vitest";
import { toyModel } from "@causeway/runner/testing";
import { midRankPercentages, ulmScores } from "./baselines.ts";
import { caseInput, permutedFoldChanges, randomGeneSets } from "./calibration.ts";
import { leaveOneCaseOut } from "./cross-validation.ts";

/** Ordinary least squares t-value of the slope, written out directly. */
function olsT(x: number[], y: number[]): number {
  const n = x.length;
  const mx = x.reduce((a, b) => a + b, 0) / n;
  const my = y.reduce((a, b) => a + b, 0) / n;
  let sxx = 0;
  let sxy = 0;
  for (let i = 0; i < n; i++) {
    sxx += (x[i]! - mx) ** 2;
    sxy += (x[i]! - mx) * (y[i]! - my);
  }
  const b = sxy / sxx;
  let sse = 0;
  for (let i = 0; i < n; i++) sse += (y[i]! - my - b * (x[i]! - mx)) ** 2;
  return b / Math.sqrt(sse / (n - 2) / sxx);
}

describe("ULM baseline", async () => {
  const model = await toyModel();
  it("is |t| of the slope of the DE statistic on the signed regulon weights", () => {
    // C regulates y (−) and z (+); the statistic covers x, y, z and two unregulated genes.
    const stat = new Map([
      ["x", 0.3],
      ["y", -2],
      ["z", 1.5],
      ["u1", 0.1],
      ["u2", -0.4],
    ]);
    const scores = ulmScores(model, stat, 2);
    const c = model.sourceIndex("C");
    expect(scores[c]).toBeCloseTo(Math.abs(olsT([0, -1, 1, 0, 0], [0.3, -2, 1.5, 0.1, -0.4])), 10);
    // A has no transcriptional edge: no score, ranked last with the other unscored sources.
    expect(scores[model.sourceIndex("A")]).toBe(-Infinity);
    const pct = midRankPercentages(scores);
    expect(pct[model.sourceIndex("A")]).toBe(1);
  });
});

describe("leave-one-case-out cross-validation", () => {
  it("scores each case with the setting chosen on the others", () => {
    // Setting 0 is best on cases 1 and 2; setting 1 only on case 0.
    const q = [
      [0.5, 0.01, 0.01],
      [0.001, 0.2, 0.2],
    ];
    const cv = leaveOneCaseOut(["a", "b"], q, q, 1001);
    expect(cv.perCase.map((p) => p.setting)).toEqual(["a", "b", "b"]);
    expect(cv.perCase.map((p) => p.q)).toEqual([0.5, 0.2, 0.2]);
    expect(cv.chosenOnAll).toBe("b");
  });
});

describe("random gene-set nulls", async () => {
  const model = await toyModel();
  const c = {
    id: "toy",
    expected: "A",
    accepted: ["A"],
    degs: ["x"],
    universe: ["x", "y", "z", "not-in-model"],
    logFC: new Map<string, number>(),
  };
  it("draws reproducible sets of distinct model genes from the universe", () => {
    const sets = randomGeneSets(model, c, 2, 50);
    expect(sets).toHaveLength(50);
    for (const s of sets) {
      expect(new Set(s).size).toBe(2);
      for (const g of s) expect(["x", "y", "z"]).toContain(g);
    }
    expect(randomGeneSets(model, c, 2, 50)).toEqual(sets);
    // Every pair of the three genes turns up: the draw is not stuck.
    expect(new Set(sets.map((s) => [...s].sort().join(","))).size).toBe(3);
  });
});

describe("fold-change nulls", () => {
  const c = {
    id: "toy",
    expected: "A",
    accepted: ["A"],
    degs: ["x"],
    universe: ["x", "y", "z"],
    logFC: new Map(Array.from({ length: 40 }, (_, i) => [`g${i}`, i] as [string, number])),
  };
  it("shuffle the fold changes over the same genes, reproducibly per seed", () => {
    const a = permutedFoldChanges(c, "s1");
    expect([...a.keys()].sort()).toEqual([...c.logFC.keys()].sort());
    expect([...a.values()].sort((x, y) => x - y)).toEqual([...c.logFC.values()]);
    expect(permutedFoldChanges(c, "s1")).toEqual(a);
    const b = permutedFoldChanges(c, "s2");
    expect([...b.entries()]).not.toEqual([...a.entries()]);
    expect([...a.entries()].filter(([g, v]) => c.logFC.get(g) === v).length).toBeLessThan(10);
  });
});

describe("a case as a job sees it", async () => {
  const model = await toyModel();
  it("counts as measured the table's genes, every gene of a count matrix and the DEGs, and passes the depth on", () => {
    const table = { id: "t", expected: "A", accepted: ["A"], degs: ["x"], universe: ["y"], logFC: new Map() };
    expect([...caseInput(model, table, ["x", "w"]).measuredGenes!].sort()).toEqual(["w", "x", "y"]);
    expect(caseInput(model, table, ["x"]).controlDepth).toBeUndefined();
    const depth = { librarySize: 1e6, counts: new Map([["z", 3]]) };
    const counts = {
      ...table,
      // The count matrix holds z and A, which failed the DE filter and are not in the universe.
      meanCp10kControl: new Map([
        ["z", 0.03],
        ["A", 0],
      ]),
      controlDepth: depth,
    };
    const input = caseInput(model, counts, ["x"]);
    expect([...input.measuredGenes!].sort()).toEqual(["A", "x", "y", "z"]);
    expect(input.controlDepth).toBe(depth);
  });
});
