import { describe, expect, it } from "vitest";
import { runDifferentialExpression } from "./run.ts";
import { DeInputError } from "./errors.ts";
import { JobFailure } from "@causeway/contract";
import { kangPseudoBulk } from "../../test/fixtures/de/load.ts";
import type { PseudoBulk } from "./types.ts";

const sample = (id: string, arm: 0 | 1, donor: string | null = null) => ({ id, arm, donor, nCells: 1 });

describe("runDifferentialExpression: input handling and metadata", () => {
  it("records the design, the filter and the low_residual_df warning", () => {
    const res = runDifferentialExpression(kangPseudoBulk(), { paired: true });
    expect(res.design).toEqual({
      formula: "~ donor + condition",
      columns: ["Intercept", "donor_107", "condition_perturbed"],
      paired: true,
      residualDf: 1,
    });
    expect(res.filter?.nKept).toBe(1225);
    expect(res.genes).toHaveLength(1225);
    expect(res.warnings.map((w) => w.code)).toEqual(["low_residual_df"]);
    expect(res.genes.every((r) => r.converged)).toBe(true);
    expect(res.genes.every((r) => r.max_cooks === null)).toBe(true);
  });

  it("is reproducible run to run (model.md §17.1)", () => {
    const a = runDifferentialExpression(kangPseudoBulk(), { paired: true });
    const b = runDifferentialExpression(kangPseudoBulk(), { paired: true });
    expect(b).toEqual(a);
  });

  it("runs the unpaired design on the same data", () => {
    const res = runDifferentialExpression(kangPseudoBulk(), { paired: false });
    expect(res.design.formula).toBe("~ condition");
    expect(res.design.residualDf).toBe(2);
    const isg15 = res.genes.find((r) => r.gene === "ISG15")!;
    expect(isg15.log2FC).toBeGreaterThan(7);
    expect(isg15.padj).toBeLessThan(1e-10);
  });

  it("fails with insufficient_replicates when no residual degree of freedom is left", () => {
    const pb: PseudoBulk = {
      genes: ["a", "b"],
      samples: [sample("c1", 0, "d1"), sample("p1", 1, "d1"), sample("c2", 0, "d2")],
      counts: Float64Array.from([10, 20, 30, 5, 6, 7]),
    };
    expect(() => runDifferentialExpression(pb, { paired: true })).toThrow(JobFailure);
  });

  it("rejects malformed input with a typed error", () => {
    const pb: PseudoBulk = {
      genes: ["a"],
      samples: [sample("c1", 0), sample("c2", 0)],
      counts: Float64Array.from([1, 2]),
    };
    expect(() => runDifferentialExpression(pb, { paired: false })).toThrow(DeInputError);
    expect(() =>
      runDifferentialExpression({ ...pb, counts: new Float64Array(3) }, { paired: false }),
    ).toThrow(DeInputError);
    const noDonor: PseudoBulk = {
      genes: ["a"],
      samples: [sample("c", 0), sample("p", 1)],
      counts: Float64Array.from([1, 2]),
    };
    expect(() => runDifferentialExpression(noDonor, { paired: true })).toThrow(DeInputError);
  });

  it("handles Poisson-like data where no dispersion leaves the floor", () => {
    // Identical counts in every sample of an arm: no over-dispersion at all.
    const genes = Array.from({ length: 150 }, (_, i) => `g${i}`);
    const counts = new Float64Array(150 * 6);
    for (let g = 0; g < 150; g++)
      for (let j = 0; j < 6; j++) counts[g * 6 + j] = 20 + g + (j >= 3 && g < 10 ? 200 : 0);
    const pb: PseudoBulk = {
      genes,
      samples: [0, 0, 0, 1, 1, 1].map((a, j) => sample(`s${j}`, a as 0 | 1)),
      counts,
    };
    const res = runDifferentialExpression(pb, { paired: false, geneFilter: "none" });
    expect(res.genes).toHaveLength(150);
    expect(res.warnings.map((w) => w.code)).toContain("dispersion_trend_fallback");
    expect(res.genes.slice(0, 10).every((r) => r.padj !== null && r.padj < 1e-6)).toBe(true);
  });
});
