import { describe, expect, it } from "vitest";
import { filterByExpr } from "./filter.ts";
import { kangEdgeR, kangPseudoBulk } from "../../test/fixtures/de/load.ts";

describe("filterByExpr (model.md §5.2)", () => {
  it("keeps exactly the 1,225 genes edgeR tested on the Kang CD14 pseudo-bulk", () => {
    const pb = kangPseudoBulk();
    const f = filterByExpr(pb);
    const kept = pb.genes.filter((_, g) => f.keep[g]);
    const edger = kangEdgeR();
    expect(f.nKept).toBe(1225);
    expect(new Set(kept)).toEqual(new Set(edger.order));
    expect(f.minSampleSize).toBe(2);
  });

  it("applies the CPM cutoff at the median library size and the total-count floor", () => {
    // Library sizes 1e5, 1e5, 3e5, 3e5: median 2e5, cutoff 50 CPM = 5 counts in the small
    // libraries. a: 70 CPM twice, total 14 < 15: dropped. b: total 15: kept. c: one sample only.
    const genes = [
      [7, 7, 0, 0],
      [8, 7, 0, 0],
      [20, 0, 0, 0],
    ];
    const filler = [0, 1, 2, 3].map((j) => (j < 2 ? 1e5 : 3e5) - genes.reduce((s, g) => s + g[j]!, 0));
    const pb = {
      genes: ["a", "b", "c", "filler"],
      samples: [0, 0, 1, 1].map((arm, j) => ({ id: `s${j}`, arm: arm as 0 | 1, donor: null, nCells: 1 })),
      counts: Float64Array.from([...genes.flat(), ...filler]),
    };
    const f = filterByExpr(pb);
    expect(f.medianLibSize).toBe(2e5);
    expect(f.cpmCutoff).toBeCloseTo(50, 12);
    expect(f.keep).toEqual([false, true, false, true]);
  });
});
