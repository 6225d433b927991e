import { describe, expect, it } from "vitest";
import { toyModel } from "../../test/fixtures/model/toy.ts";

const close = (a: ArrayLike<number>, b: readonly number[], digits = 7): void => {
  expect(Array.from(a)).toHaveLength(b.length);
  b.forEach((v, i) => expect(a[i]).toBeCloseTo(v, digits));
};

describe("toy network of model.md §17.2", async () => {
  const model = await toyModel();

  it("has P = 1/2 on every edge", () => {
    expect(Array.from(model.graph.p.data)).toEqual([0.5, 0.5, 0.5, 0.5, 0.5, 0.5]);
    expect(model.graph.nodeIds).toEqual(["A|PROTEIN", "B|PROTEIN", "C|PROTEIN", "x|RNA", "y|RNA", "z|RNA"]);
  });

  it.each([
    ["A", [0.0625, 0.125, 0.0625]],
    ["B", [0.25, 0.25, 0]],
    ["C", [0, 0.25, 0.25]],
  ] as const)("I(%s,·) from the bundle and by vector iteration", (s, expected) => {
    close(model.influenceOf(s)!, expected, 12);
    close(model.influenceRow(s)!, expected, 12);
  });

  it("has S = {A, B, C} and the uniform baseline B", () => {
    expect(model.sourceSymbols).toEqual(["A", "B", "C"]);
    close(model.baseline, [0.1041667, 0.2083333, 0.1041667]);
    expect(model.manifest.iterations).toBe(34);
  });

  it.each([
    ["A", [0.6, 0.6, 0.6], [-0.7369656, -0.7369656, -0.7369656]],
    ["B", [2.4, 1.2, 0], [1.2630344, 0.2630344, NaN]],
    ["C", [0, 1.2, 2.4], [NaN, 0.2630344, 1.2630344]],
  ] as const)("F and X of %s", (s, F, X) => {
    const row = model.influenceOf(s)!;
    const f = Array.from(row, (v, j) => v / model.baseline[j]!);
    close(f, F);
    Array.from(row, (v, j) => (v > 0 ? Math.log2(v / model.baseline[j]!) : NaN)).forEach((x, j) => {
      if (Number.isNaN(X[j]!)) expect(x).toBeNaN();
      else expect(x).toBeCloseTo(X[j]!, 7);
    });
  });

  it("reports out-degrees and unknown proteins", () => {
    expect([model.outDegree("A"), model.outDegree("B"), model.outDegree("x"), model.outDegree("Q")]).toEqual([
      2, 2, 0, 0,
    ]);
    expect(model.influenceOf("Q")).toBeNull();
  });
});
