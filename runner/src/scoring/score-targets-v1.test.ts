import { describe, expect, it } from "vitest";
import { JobFailure } from "@causeway/contract";
import { toyModel, toyScoreInput } from "../../test/fixtures/model/toy.ts";
import { scoreTargets } from "./score-targets-v1.ts";

describe("target_id on the toy network (model.md §17.2)", async () => {
  const model = await toyModel();
  const base = toyScoreInput(model);
  const res = scoreTargets(base);
  const byId = Object.fromEntries(res.rows.map((r) => [r.id.split("|")[0]!, r]));

  it("counts K and k", () => {
    expect([
      byId.A!.n_universe_significant,
      byId.B!.n_universe_significant,
      byId.C!.n_universe_significant,
    ]).toEqual([0, 2, 2]);
    expect([byId.A!.n_degs_significant, byId.B!.n_degs_significant, byId.C!.n_degs_significant]).toEqual([
      0, 1, 0,
    ]);
    expect([res.n, res.N]).toEqual([1, 3]);
  });

  it.each([
    ["A", 0, 0, 1, 0.5, 0],
    ["B", 0.1760913, 0.7071068, 0, 0, 100],
    ["C", 0, -1.4142136, 2, 1, 0],
  ])(
    "%s: score %f, z %f, rank %i, rank_percentage %f, percentage %f",
    (s, score, z, rank, pct, percentage) => {
      const row = byId[s]!;
      expect(row.score).toBeCloseTo(score, 7);
      expect(row.z_score).toBeCloseTo(z, 7);
      expect(row.rank).toBe(rank);
      expect(row.rank_percentage).toBe(pct);
      expect(row.percentage_degs_significant).toBe(percentage);
      expect(row.node_type).toBe("PROTEIN");
      expect(row.pvalue_method).toBe("hypergeometric");
    },
  );

  it("orders rows by rank and fills the extra columns", () => {
    expect(res.rows.map((r) => r.id)).toEqual(["B|PROTEIN", "A|PROTEIN", "C|PROTEIN"]);
    expect(res.rows.map((r) => r.rank_percentage)).toEqual([0, 0.5, 1]);
    expect(byId.B!.pvalue).toBeCloseTo(2 / 3, 12);
    expect(byId.B!.k_expected).toBeCloseTo(2 / 3, 12);
    expect(byId.B!.mean_log2_fold_degs).toBeCloseTo(1.2630344, 7);
    expect(byId.C!.mean_log2_fold_degs).toBeNull();
    expect([byId.A!.is_deg, byId.B!.is_deg, byId.C!.is_deg]).toEqual([false, true, false]);
    expect([byId.A!.protein_expressed, byId.B!.protein_expressed, byId.C!.protein_expressed]).toEqual([
      true,
      false,
      null,
    ]);
    expect(byId.B!.qvalue).toBeCloseTo(1, 12);
  });

  it("returns X(s,d) in rank order with NaN where I = 0", () => {
    expect(res.sourceInfluence.rowIds).toEqual(["B|PROTEIN", "A|PROTEIN", "C|PROTEIN"]);
    expect(res.sourceInfluence.columnIds).toEqual(["x|RNA"]);
    const [b, a, c] = Array.from(res.sourceInfluence.data);
    expect(b).toBeCloseTo(1.2630344, 6);
    expect(a).toBeCloseTo(-0.7369656, 6);
    expect(c).toBeNaN();
  });

  it("sums each source's influence over the DEGs, in the model's source order (v4's raw influence)", () => {
    const x = model.rnaIndex("x");
    expect(Array.from(res.influenceSum)).toEqual(
      model.sourceSymbols.map((_, s) => model.influence[s * model.nRna + x]!),
    );
    expect(res.influenceSum[model.sourceIndex("B")]).toBeGreaterThan(0);
    expect(res.influenceSum[model.sourceIndex("C")]).toBe(0);
  });

  it.each([
    [{ degs: [], jobType: "target_validation" as const }, "too_few_mapped_degs"],
    [{ degs: ["x", "y", "z"], jobType: "target_id" as const }, "too_few_mapped_degs"],
    [{ degs: ["x", "y", "z"], jobType: "target_validation" as const }, "degs_cover_universe"],
  ])("fails with the §7.1 checks (%j → %s)", (patch, code) => {
    const err = (() => {
      try {
        scoreTargets({ ...base, ...patch });
      } catch (e) {
        return e;
      }
      return null;
    })();
    expect(err).toBeInstanceOf(JobFailure);
    expect((err as JobFailure).code).toBe(code);
  });

  it("adds DEGs missing from the universe and ignores non-model genes", () => {
    const r = scoreTargets({ ...base, universe: ["y", "z", "NOTAGENE"], degs: ["x", "NOTAGENE"] });
    expect([r.n, r.N]).toEqual([1, 3]);
  });
});
