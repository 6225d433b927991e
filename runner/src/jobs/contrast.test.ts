/**
 * The universe of DEG-list input (model.md §7.1): a DE table's genes plus the DEGs, or, for a
 * bare DEG list (no expression data), every RNA node of the model. Toy network of §17.2
 * (RNAs x, y, z).
 */
import { PredictionParams } from "@causeway/contract";
import { describe, expect, it } from "vitest";
import { toyModel } from "../../test/fixtures/model/toy.ts";
import { scoringOf } from "../scoring/index.ts";
import { contrastFromDegList } from "./contrast.ts";
import { readDeTable } from "./de-table.ts";
import { scoringInputOf } from "./scoring-input.ts";

describe("contrastFromDegList", async () => {
  const model = await toyModel();
  const params = PredictionParams.parse({});

  it("gives a bare DEG list the genome-wide universe: every RNA node of the model", () => {
    const c = contrastFromDegList(model, ["x", "y", "NOT_A_NODE"], null);
    expect([...c.universe].sort()).toEqual(["NOT_A_NODE", "x", "y", "z"]);
    expect(c.mappedDegs.sort()).toEqual(["x", "y"]);
    expect(c.measuredGenes).toBeNull();
    expect(c.metadata).toMatchObject({ input: "deg_list", universe: "genome_wide" });
    expect(c.degsTable.filter((r) => r.in_universe).map((r) => r.gene)).toEqual(["x", "y", "z"]);
    expect(c.degsTable.find((r) => r.gene === "NOT_A_NODE")).toMatchObject({ is_deg: true, in_model: false });
  });

  it("keeps a DE table's genes plus the DEGs as the universe when a table is given", () => {
    const c = contrastFromDegList(model, ["x"], {
      genes: ["x", "y"],
      logFC: [1.5, null],
      meanCp10kCtrl: null,
    });
    expect(c.universe).toEqual(["x", "y"]);
    expect(c.metadata).toMatchObject({ universe: "de_table" });
    expect(c.log2fc.get("x")).toBe(1.5);
    expect(c.testStatistic).toBeNull();
  });

  it("carries a table's test statistic to the scoring input and degs.tsv, read from `stat` or limma's `t`", () => {
    for (const column of ["stat", "t"]) {
      const text = [
        `gene\tlogFC\t${column}\tpvalue`,
        "x\t1.5\t7.25\t1e-9",
        "y\t-0.2\tNA\t0.5",
        "z\t0.1\t-0.5\t0.6",
      ];
      const table = readDeTable(text.join("\n"), model.symbols);
      expect(table.stat).toEqual([7.25, null, -0.5]);
      const c = contrastFromDegList(model, ["x"], table);
      expect([...c.testStatistic!]).toEqual([
        ["x", 7.25],
        ["z", -0.5],
      ]);
      expect(c.degsTable.map((r) => r.stat)).toEqual([7.25, null, -0.5]);
      const input = scoringInputOf({
        model,
        contrast: c,
        params,
        scoring: "v4",
        predictionId: "p",
        jobType: "target_id",
      });
      expect(input.testStatistic).toBe(c.testStatistic);
    }
    const noStat = readDeTable("gene\tlogFC\nx\t1.5", model.symbols);
    expect(noStat.stat).toBeNull();
    expect(contrastFromDegList(model, ["x"], noStat).testStatistic).toBeNull();
  });

  it.each(["v1", "v2"] as const)(
    "scores a bare list of every gene but one against the rest of the genome (%s), not degs_cover_universe",
    (version) => {
      // Before the genome-wide universe, a bare list's universe was the list itself (n = N).
      const c = contrastFromDegList(model, ["x", "y"], null);
      const input = scoringInputOf({
        model,
        contrast: c,
        params,
        scoring: version,
        predictionId: "p",
        jobType: "target_validation",
      });
      const result = scoringOf(version).score(input);
      expect(result.N).toBe(3);
      expect(result.n).toBe(2);
      expect(result.rows).toHaveLength(model.nSources);
    },
  );
});
