import { describe, expect, it } from "vitest";
import { estimateSizeFactors, poscountsSizeFactors } from "./size-factors.ts";
import { kangIntermediates, kangPseudoBulk, metaValues } from "../../test/fixtures/de/load.ts";

describe("size factors (model.md §5.3)", () => {
  const pb = kangPseudoBulk();
  const m = pb.samples.length;

  it("match DESeq2's median-of-ratios on the Kang CD14 pseudo-bulk to 1e-12 relative", () => {
    const { sizeFactors, method } = estimateSizeFactors(pb.counts, pb.genes.length, m);
    expect(method).toBe("ratio");
    const ref = metaValues(kangIntermediates(), "sizeFactors");
    pb.samples.forEach((s, j) => expect(Math.abs(sizeFactors[j]! / ref.get(s.id)! - 1)).toBeLessThan(1e-12));
  });

  it("poscounts matches DESeq2 1.38 estimateSizeFactors(dds, type = 'poscounts') on Kang", () => {
    // Printed by DESeq2 1.38.3 for the shared Kang CD14 pseudo-bulk matrix (the
    // DESeqDataSet method, which rescales to a geometric mean of 1 as model.md §5.3 says).
    const expected = [1.19208433416419157, 0.94675675361677736, 1.01095371255475808, 0.8764423123574594];
    const sf = poscountsSizeFactors(pb.counts, pb.genes.length, m);
    expected.forEach((e, j) => expect(Math.abs(sf[j]! / e - 1)).toBeLessThan(1e-12));
  });

  it("switches to poscounts below 100 all-positive genes", () => {
    const { sizeFactors, method } = estimateSizeFactors(pb.counts.subarray(0, 99 * m), 99, m);
    expect(method).toBe("poscounts");
    const logMean = Array.from(sizeFactors).reduce((s, v) => s + Math.log(v) / m, 0);
    expect(Math.abs(logMean)).toBeLessThan(1e-12);
  });
});
