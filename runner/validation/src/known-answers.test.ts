import { describe, expect, it } from "vitest";
import { KNOWN_ANSWERS_DIR } from "../../../test/shared-data.ts";
import { defaultModel, exactScore } from "@causeway/runner/testing";
import { scoreTargets, type ScoreTargetsInput } from "@causeway/runner/scoring";
import { readCase } from "./known-answers.ts";

// model.md §16.5: |S| = 4265, N, n, rank, rank_percentage, score, n_degs_significant, %, best accepted.
type Row = [
  id: string,
  N: number,
  n: number,
  expected: string,
  rank: number,
  pct: number,
  score: number,
  k: number,
  percentage: number,
  best: string,
  bestRank: number,
];
const TABLE: Row[] = [
  ["kang2018_ifnb_cd14mono", 683, 272, "STAT1", 87, 0.0204, 6.13, 114, 41.91, "IRF9", 0],
  ["nichenet_bmp4", 6037, 125, "BMPR1A", 32, 0.0075, 3.783, 19, 15.2, "BMP4", 10],
  ["nichenet_tgfb1", 6037, 76, "TGFBR1", 99, 0.0232, 1.882, 10, 13.16, "TGFB1", 4],
  ["nichenet_nodal", 5825, 208, "ACVR1B", 2223, 0.5213, 0.114, 28, 13.46, "SMAD3", 245],
  ["st486_foxm1_knockdown", 3410, 119, "FOXM1", 65, 0.0152, 1.746, 7, 5.88, "FOXM1", 65],
  ["p3hr1_mef2b_knockdown", 3410, 352, "MEF2B", 1383, 0.3243, 0.377, 1, 0.28, "MEF2B", 1383],
];

describe("known-answer reference values (model.md §16.5)", async () => {
  const model = await defaultModel();

  it("has the default network's counts", () => {
    expect(model.nSources).toBe(4265);
    expect(model.manifest.counts).toMatchObject({
      proteins: 6232,
      rnas: 6590,
      signaling_edges: 18543,
      transcriptional_edges: 41655,
    });
    expect(model.proteinSymbols.filter((s) => model.outDegree(s) === 0)).toHaveLength(1463);
    expect(Math.min(...model.baseline)).toBeCloseTo(1.2e-7, 8);
  });

  it.each(TABLE)(
    "%s: N=%i n=%i, %s at rank %i",
    async (id, N, n, expected, rank, pct, score, k, percentage, best, bestRank) => {
      const c = await readCase(KNOWN_ANSWERS_DIR, id, model.symbols);
      const res = scoreTargets({
        model,
        universe: c.universe,
        degs: c.degs,
        degSignificanceFold: 1,
        minMeanExpression: 0.1,
        isDegSymbols: new Set(c.degs),
        nRandomizations: 0,
        seedSource: `${id}/`,
      });
      expect([res.rows.length, res.N, res.n]).toEqual([4265, N, n]);
      const row = res.rows.find((r) => r.id === `${expected}|PROTEIN`)!;
      expect(row.rank).toBe(rank);
      expect(row.rank_percentage).toBeCloseTo(pct, 4);
      // The table prints 3-4 digits; the score itself is checked against the exact tail in hypergeometric.test.ts.
      expect(Math.abs(row.score - score)).toBeLessThan(5e-4);
      expect(
        Math.abs(row.score - exactScore(row.n_degs_significant, N, row.n_universe_significant, n)),
      ).toBeLessThan(1e-9);
      expect(row.n_degs_significant).toBe(k);
      expect(row.percentage_degs_significant).toBeCloseTo(percentage, 2);
      const accepted = new Set(c.accepted.map((s) => `${s}|PROTEIN`));
      const bestRow = res.rows.find((r) => accepted.has(r.id))!;
      expect([bestRow.id, bestRow.rank]).toEqual([`${best}|PROTEIN`, bestRank]);
    },
  );

  describe("randomization (§8.2) on the Kang case", async () => {
    const c = await readCase(KNOWN_ANSWERS_DIR, "kang2018_ifnb_cd14mono", model.symbols);
    const input: ScoreTargetsInput = {
      model,
      universe: c.universe,
      degs: c.degs,
      degSignificanceFold: 1,
      minMeanExpression: 0.1,
      isDegSymbols: new Set(c.degs),
      nRandomizations: 200,
      seedSource: "00000000-0000-0000-0000-000000000001/",
    };
    const a = scoreTargets(input);
    const b = scoreTargets(input);
    const other = scoreTargets({ ...input, seedSource: "00000000-0000-0000-0000-000000000002/" });
    const analytic = scoreTargets({ ...input, nRandomizations: 0 });

    it("is reproducible for one seed and changes with the seed", () => {
      expect(a.seedHex).toMatch(/^[0-9a-f]{16}$/);
      expect(b.rows.map((r) => r.pvalue)).toEqual(a.rows.map((r) => r.pvalue));
      expect(b.rows.map((r) => r.z_score)).toEqual(a.rows.map((r) => r.z_score));
      expect(other.seedHex).not.toBe(a.seedHex);
      expect(other.rows.map((r) => r.pvalue)).not.toEqual(a.rows.map((r) => r.pvalue));
    });

    it("keeps the rank order of the analytic run and gives Phipson–Smyth p-values", () => {
      expect(a.rows.map((r) => r.id)).toEqual(analytic.rows.map((r) => r.id));
      for (const r of a.rows) {
        expect(r.pvalue).toBeGreaterThanOrEqual(1 / 201);
        expect(
          Number.isInteger(r.pvalue * 201 + 1e-9) ||
            Math.abs(r.pvalue * 201 - Math.round(r.pvalue * 201)) < 1e-9,
        ).toBe(true);
        expect(r.pvalue_method).toBe("randomization");
      }
      const irf9 = a.rows.find((r) => r.id === "IRF9|PROTEIN")!;
      expect(irf9.pvalue).toBeCloseTo(1 / 201, 12);
      expect(irf9.z_score).toBeGreaterThan(3);
      expect(a.randomizationNull).toHaveLength(4265);
      // Every DEG is drawn from a stratum group large enough to hold it.
      expect(a.strata!.reduce((s, g) => s + g.nDegs, 0)).toBe(a.n);
      for (const g of a.strata!) expect(g.genes.length).toBeGreaterThanOrEqual(g.nDegs);
    });
  });
});
