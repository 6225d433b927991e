import { describe, expect, it } from "vitest";
import { JobFailure } from "@causeway/contract";
import { toyModel } from "../../test/fixtures/model/toy.ts";
import { causalAnalysis, type CausalAnalysisInput } from "./causal-analysis.ts";
import { intermediaryProteins } from "./intermediaries.ts";

const failureOf = (fn: () => unknown): JobFailure => {
  try {
    fn();
  } catch (e) {
    if (e instanceof JobFailure) return e;
    throw e;
  }
  throw new Error("expected a JobFailure");
};

describe("causal analysis on the toy network (model.md §17.2)", async () => {
  const model = await toyModel();
  const input: CausalAnalysisInput = {
    model,
    target: "A|PROTEIN",
    degs: ["x", "y", "z"],
    foldChanges: new Map<string, number | null>([
      ["x", -1.5],
      ["y", 2],
      ["z", -0.5],
      ["B", 0.4],
    ]),
  };
  const res = causalAnalysis(input);

  it("ranks the impacted DEGs D_t = (y, x, z)", () => {
    expect(res.degs).toEqual(["y", "x", "z"]);
    expect(res.impacted.map((d) => d.score_deg_given_target)).toEqual([0.125, 0.0625, 0.0625]);
    expect(res.impacted.map((d) => d.order)).toEqual([0, 1, 2]);
    expect(res.impacted[0]!.log2_fold_uniform).toBeCloseTo(-0.7369656, 7);
    expect(res.maxPathLength).toBe(6);
  });

  it("keeps the four paths with their probability, score, fraction and sign", () => {
    const rows = res.paths.map((p) => [
      p.path,
      p.path_probability,
      p.score_path_given_target,
      p.path_fraction,
      p.path_sign,
      p.length,
    ]);
    expect(rows).toEqual([
      ["A>B>y", 0.25, 0.0625, 0.5, 1, 3],
      ["A>C>y", 0.25, 0.0625, 0.5, 1, 3],
      ["A>B>x", 0.25, 0.0625, 1, 1, 3],
      ["A>C>z", 0.25, 0.0625, 1, -1, 3],
    ]);
  });

  it("fills the artifact-only columns", () => {
    const acy = res.paths[1]!;
    expect(acy).toMatchObject({
      deg: "y",
      target: "A",
      edge_signs: "-,-",
      path_nodes: '["A|PROTEIN","C|PROTEIN","y|RNA"]',
      edge_evidence: "Toy;Toy",
      deg_logFC: 2,
      path_logFC: null,
    });
    // Loss of function (modality −1): predicted direction −1 against a positive DEG change.
    expect(acy.sign_consistent).toBe(false);
    const abx = res.paths[2]!;
    expect(abx).toMatchObject({ path_logFC: 0.4, edge_evidence: "Toy;Toy:111", sign_consistent: true });
    expect(causalAnalysis({ ...input, modality: 1 }).paths[1]!.sign_consistent).toBe(true);
  });

  it("finds intermediaries B and C with n_paths_used = 4", () => {
    const r = intermediaryProteins(res.paths, { topNDegs: 3, impactedDegOrder: res.degs });
    expect(r).toEqual({ proteins: ["B", "C"], n_paths_used: 4 });
    expect(intermediaryProteins(res.paths, { topNDegs: 1, impactedDegOrder: res.degs })).toEqual({
      proteins: ["B", "C"],
      n_paths_used: 2,
    });
    expect(
      intermediaryProteins(res.paths, { topNDegs: 3, deg: "z|RNA", impactedDegOrder: res.degs }),
    ).toEqual({ proteins: ["C"], n_paths_used: 1 });
    expect(
      intermediaryProteins(res.paths, { topNDegs: 1, deg: "z|RNA", impactedDegOrder: res.degs }),
    ).toEqual({ proteins: [], n_paths_used: 0 });
  });

  it("orders intermediaries by summed score, ties by symbol, and ignores direct paths", () => {
    const rows = [
      { deg: "d1", path: "T>Q>d1", score_path_given_target: 0.1 },
      { deg: "d1", path: "T>d1", score_path_given_target: 0.5 },
      { deg: "d2", path: "T>P>Q>d2", score_path_given_target: 0.3 },
    ];
    expect(intermediaryProteins(rows, { topNDegs: 2, impactedDegOrder: ["d1", "d2"] })).toEqual({
      proteins: ["Q", "P"],
      n_paths_used: 2,
    });
  });

  it.each([
    [{ minPathProbability: 0.3 }, "no_path_above_thresholds"],
    [{ maxPathLength: 2 }, "no_path_above_thresholds"],
    [{ target: "B", degs: ["z"] }, "no_reachable_deg"],
    [{ minDegsFoldUniform: 0 }, "no_reachable_deg"],
  ])("fails with target_not_reachable for %j (%s)", (patch, detail) => {
    const err = failureOf(() => causalAnalysis({ ...input, ...patch }));
    expect(err.code).toBe("target_not_reachable");
    expect(err.detail).toBe(detail);
  });

  it("fails with target_not_in_interactome for a target without a PROTEIN node", () => {
    expect(failureOf(() => causalAnalysis({ ...input, target: "x" })).code).toBe("target_not_in_interactome");
    expect(failureOf(() => causalAnalysis({ ...input, target: "NOPE|PROTEIN" })).code).toBe(
      "target_not_in_interactome",
    );
  });

  it("cuts D_t to top_n_causal_degs", () => {
    const r = causalAnalysis({ ...input, topNCausalDegs: 1 });
    expect(r.degs).toEqual(["y"]);
    expect(r.paths.map((p) => p.path)).toEqual(["A>B>y", "A>C>y"]);
  });
});
