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
