/**
 * Calibration (model.md §16.4): contrasts without a biological difference must give close to
 * zero DEGs and roughly uniform p-values.
 */
import { describe, expect, it } from "vitest";
import h5wasm from "h5wasm/node";
import { sharedData, KANG_DIR } from "../../../test/shared-data.ts";
import { runDifferentialExpression } from "./run.ts";
import { applyDegRule } from "./deg-rule.ts";
import { JobFailure } from "@causeway/contract";
import { kangPseudoBulk } from "../../test/fixtures/de/load.ts";
import type { DeResult, PseudoBulk } from "./types.ts";

type Values = ArrayLike<number | bigint>;

/**
 * Control vs control: the 200 control cells of the split upload, each donor's cells dealt
 * alternately into two pseudo-samples "A" and "B", tested as A vs B paired by donor.
 */
async function controlVsControl(): Promise<PseudoBulk> {
  await h5wasm.ready;
  const f = new h5wasm.File(sharedData(KANG_DIR, "split_cd14mono", "control.h5ad"), "r");
  try {
    const read = (path: string): Values => (f.get(path) as unknown as { value: Values }).value;
    const data = read("X/data");
    const indices = read("X/indices");
    const indptr = read("X/indptr");
    const codes = read("obs/donor/codes");
    const donors = (f.get("obs/donor/categories") as unknown as { value: string[] }).value;
    const genes = (f.get("var/_index") as unknown as { value: string[] }).value;
    const samples = donors.flatMap((d) =>
      [0, 1].map((arm) => ({ id: `${"AB"[arm]}${d}`, arm: arm as 0 | 1, donor: d, nCells: 0 })),
    );
    const m = samples.length;
    const counts = new Float64Array(genes.length * m);
    const seen = new Array<number>(donors.length).fill(0);
    for (let c = 0; c + 1 < indptr.length; c++) {
      const d = Number(codes[c]);
      const j = d * 2 + (seen[d]!++ % 2);
      samples[j]!.nCells++;
      for (let k = Number(indptr[c]); k < Number(indptr[c + 1]); k++)
        counts[Number(indices[k]) * m + j]! += Number(data[k]);
    }
    return { genes, samples, counts };
  } finally {
    f.close();
  }
}

/** Kolmogorov–Smirnov distance of the p-values from the uniform distribution. */
function ksUniform(p: number[]): number {
  const s = [...p].sort((a, b) => a - b);
  let d = 0;
  s.forEach((v, i) => (d = Math.max(d, (i + 1) / s.length - v, v - i / s.length)));
  return d;
}

const significant = (res: DeResult): number =>
  res.genes.filter((r) => r.padj !== null && r.padj < 0.05).length;

describe("mock contrasts", () => {
  it("control vs control (cells of each donor split in two) gives no DEGs", async () => {
    const pb = await controlVsControl();
    expect(pb.samples.map((s) => s.nCells)).toEqual([50, 50, 50, 50]);
    const res = runDifferentialExpression(pb, { paired: true });
    expect(res.genes.length).toBeGreaterThan(1000);
    expect(significant(res)).toBe(0);
    expect(() => applyDegRule(res)).toThrow(JobFailure);
    try {
      applyDegRule(res);
    } catch (e) {
      expect((e as JobFailure).code).toBe("no_degs_detected");
    }
    // Technical replicates are under-dispersed relative to the NB trend: p-values pile up
    // near 1 rather than 0 (KS distance 0.33 here), which is conservative.
    const p = res.genes.flatMap((r) => (r.pvalue === null ? [] : [r.pvalue]));
    expect(ksUniform(p)).toBeLessThan(0.4);
    expect(p.filter((v) => v < 0.01).length / p.length).toBeLessThan(0.01);
  });

  it("labels permuted across donors and conditions give close to zero DEGs", () => {
    const pb = kangPseudoBulk();
    // ctrl101 and stim107 against ctrl107 and stim101: balanced for both real factors.
    const fake: Record<string, 0 | 1> = { ctrl101: 0, stim107: 0, ctrl107: 1, stim101: 1 };
    const permuted = { ...pb, samples: pb.samples.map((s) => ({ ...s, arm: fake[s.id]! })) };
    const res = runDifferentialExpression(permuted, { paired: true });
    expect(significant(res)).toBe(0);
  });
});
