import { describe, expect, it } from "vitest";
import { foldChangesForSplitUpload, pooledLog2FoldChanges } from "./pooled.ts";
import { kangDeseq2, kangPseudoBulk, num } from "../../test/fixtures/de/load.ts";
import type { PseudoBulk } from "./types.ts";

describe("fold changes for split uploads (model.md §5.9)", () => {
  const oneVsOne: PseudoBulk = {
    genes: ["a", "b", "c"],
    samples: [
      { id: "ctrl", arm: 0, donor: null, nCells: 10 },
      { id: "pert", arm: 1, donor: null, nCells: 10 },
    ],
    // Library sizes 1e6 and 2e6.
    counts: Float64Array.from([99, 0, 0, 4000, 999_901, 1_996_000]),
  };

  it("pools counts per arm: log2((CPM_pert + 1) / (CPM_ctrl + 1))", () => {
    const r = pooledLog2FoldChanges(oneVsOne);
    expect(r.log2FC[0]).toBeCloseTo(Math.log2(1 / 100), 12);
    expect(r.log2FC[1]).toBeCloseTo(Math.log2(2001), 12);
    expect(r.log2FC[2]).toBeCloseTo(Math.log2((998_000 + 1) / (999_901 + 1)), 12);
  });

  it("uses pooled CPM when an arm has fewer than 2 samples", () => {
    const r = foldChangesForSplitUpload(oneVsOne, { paired: false });
    expect(r.method).toBe("pooled_cpm");
    expect(r.log2FC.get("b")).toBeCloseTo(Math.log2(2001), 12);
  });

  it("uses the GLM on every expressed gene when both arms have 2 samples", () => {
    const r = foldChangesForSplitUpload(kangPseudoBulk(), { paired: true });
    expect(r.method).toBe("glm");
    expect(r.log2FC.size).toBe(1266);
    const ref = kangDeseq2();
    // The prior variance is estimated here (not DESeq2's Monte Carlo value): fold changes
    // of expressed genes stay within 0.02 of DESeq2's.
    for (const g of ["ISG15", "CXCL10", "IFIT1", "MX1"]) {
      expect(Math.abs(r.log2FC.get(g)! - num(ref, g, "log2FoldChange"))).toBeLessThan(0.02);
    }
  });
});

describe("pooled fold changes with full library sizes", () => {
  it("uses the arms' full totals when given (genes outside the matrix still count in L)", () => {
    const pb = {
      genes: ["A"],
      samples: [
        { id: "c", arm: 0 as const, donor: null, nCells: 1 },
        { id: "p", arm: 1 as const, donor: null, nCells: 1 },
      ],
      counts: new Float64Array([10, 40]),
    };
    const { log2FC } = pooledLog2FoldChanges(pb, [1e6, 2e6]);
    // CPM ctrl = 10, CPM pert = 20 → log2(21 / 11)
    expect(log2FC[0]).toBeCloseTo(Math.log2(21 / 11), 12);
    expect(pooledLog2FoldChanges(pb).log2FC[0]).toBeCloseTo(Math.log2((1e6 + 1) / (1e6 + 1)), 12);
  });
});
