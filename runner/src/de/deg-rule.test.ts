import { describe, expect, it } from "vitest";
import { applyDegRule } from "./deg-rule.ts";
import { JobFailure } from "@causeway/contract";
import type { DeGeneRow, DeResult } from "./types.ts";

function result(rows: [number, number | null][]): DeResult {
  const genes: DeGeneRow[] = rows.map(([lfc, padj], i) => ({
    gene: `g${i}`,
    base_mean: 100,
    log2FC: lfc,
    lfcSE: 0.1,
    stat: 0,
    pvalue: padj,
    padj,
    converged: true,
    disp_gene: 0.1,
    disp_trend: 0.1,
    disp_map: 0.1,
    dispersion: 0.1,
    disp_outlier: false,
    max_cooks: null,
  }));
  return {
    design: {
      formula: "~ condition",
      columns: ["Intercept", "condition_perturbed"],
      paired: false,
      residualDf: 4,
    },
    samples: [],
    sizeFactors: [],
    sizeFactorMethod: "ratio",
    filter: null,
    trend: { kind: "mean", value: 0.1 },
    dispPriorVar: 0.25,
    dispPriorVarMethod: "mad",
    logDispResidualSd: 1,
    genes,
    warnings: [],
  };
}

describe("applyDegRule (model.md §5.8)", () => {
  it("uses padj < 0.05 and |log2FC| >= 1 and pools both directions", () => {
    const rows: [number, number | null][] = Array.from({ length: 25 }, (_, i) => [i % 2 ? 1 : -1.5, 0.01]);
    rows.push([0.9, 0.001], [2, 0.05], [3, null]);
    const r = applyDegRule(result(rows));
    expect(r.rule).toBe("padj<0.05,|lfc|>=1");
    expect(r.degs).toHaveLength(25);
    expect(r.largeDegSet).toBe(false);
  });

  it("relaxes to |log2FC| >= 0.5 below 20 genes", () => {
    const rows: [number, number | null][] = Array.from({ length: 19 }, () => [1.2, 0.01]);
    rows.push([0.5, 0.049], [0.49, 0.01]);
    const r = applyDegRule(result(rows));
    expect(r.rule).toBe("padj<0.05,|lfc|>=0.5");
    expect(r.degs).toHaveLength(20);
  });

  it("flags more than 1000 DEGs as a large set", () => {
    const r = applyDegRule(result(Array.from({ length: 1001 }, () => [-2, 1e-5])));
    expect(r.largeDegSet).toBe(true);
  });

  it("fails with no_degs_detected (non-billable) and a message saying what to do", () => {
    let err: unknown;
    try {
      applyDegRule(
        result([
          [3, 0.2],
          [0.1, 0.001],
        ]),
      );
    } catch (e) {
      err = e;
    }
    expect(err).toBeInstanceOf(JobFailure);
    const f = err as JobFailure;
    expect(f.code).toBe("no_degs_detected");
    expect(f.message).toMatch(/No gene is differentially expressed/);
    expect(f.message).toMatch(/replicates/);
    expect(f.detail).toMatch(/tested=2/);
  });
});
