import { describe, expect, it } from "vitest";
import { KNOWN_ANSWERS_DIR } from "../../../test/shared-data.ts";
import { defaultModel } from "@causeway/runner/testing";
import { readCase } from "./known-answers.ts";
import { JobFailure } from "@causeway/contract";
import {
  causalAnalysis,
  DEFAULT_PATH_SEARCH_BUDGET,
  enumeratePaths,
  intermediaryProteins,
} from "@causeway/runner/causal";

describe("causal analysis on the default network (model.md §10.3–10.4)", async () => {
  const model = await defaultModel();

  it.each([
    ["kang2018_ifnb_cd14mono", "STAT1", 75],
    ["nichenet_tgfb1", "TGFBR1", 8],
  ])("%s: %s has %i DEGs with a kept path, within the expansion bound", async (id, target, nDegsWithPath) => {
    const c = await readCase(KNOWN_ANSWERS_DIR, id, model.symbols);
    const res = causalAnalysis({ model, target, degs: c.degs, foldChanges: c.logFC });
    expect(new Set(res.paths.map((p) => p.deg)).size).toBe(nDegsWithPath);
    // §10.4: 700–2,600 expansions measured for these targets; the bound is (L−1)/min_path_probability.
    expect(res.expansions).toBeGreaterThanOrEqual(700);
    expect(res.expansions).toBeLessThanOrEqual(2600);
    for (const p of res.paths) {
      expect(p.length).toBeLessThanOrEqual(6);
      expect(p.path_probability).toBeGreaterThanOrEqual(1e-4);
      expect(p.path_fraction).toBeGreaterThanOrEqual(0.1);
      expect(p.score_path_given_target).toBeCloseTo(Math.pow(0.5, p.length - 1) * p.path_probability, 15);
    }
    const order = new Map(res.degs.map((d, i) => [d, i]));
    for (let i = 1; i < res.paths.length; i++) {
      const a = res.paths[i - 1]!;
      const b = res.paths[i]!;
      const cmp =
        order.get(a.deg)! - order.get(b.deg)! ||
        b.score_path_given_target - a.score_path_given_target ||
        (a.path < b.path ? -1 : 1);
      expect(cmp).toBeLessThan(0);
    }
    const inter = intermediaryProteins(res.paths, { topNDegs: 20, impactedDegOrder: res.degs });
    expect(inter.proteins).not.toContain(target);
  });

  it("doubles the DEGs with a path when min_path_probability drops to 1e-5 (TGFBR1 8 → 17)", async () => {
    const c = await readCase(KNOWN_ANSWERS_DIR, "nichenet_tgfb1", model.symbols);
    const res = causalAnalysis({ model, target: "TGFBR1", degs: c.degs, minPathProbability: 1e-5 });
    expect(new Set(res.paths.map((p) => p.deg)).size).toBe(17);
  });

  it("shows STAT1's direct IRF1 path first for the Kang DEGs", async () => {
    const c = await readCase(KNOWN_ANSWERS_DIR, "kang2018_ifnb_cd14mono", model.symbols);
    const res = causalAnalysis({ model, target: "STAT1|PROTEIN", degs: c.degs, foldChanges: c.logFC });
    expect(res.paths[0]).toMatchObject({
      path: "STAT1>IRF1",
      deg: "IRF1",
      target: "STAT1",
      length: 2,
      path_logFC: null,
    });
    expect(res.paths[0]!.deg_logFC).toBeCloseTo(c.logFC.get("IRF1")!, 12);
  });

  it("stops a search beyond its work budget with path_search_too_large instead of exhausting the heap", async () => {
    const c = await readCase(KNOWN_ANSWERS_DIR, "kang2018_ifnb_cd14mono", model.symbols);
    const started = performance.now();
    let failure: unknown;
    try {
      // The attack run's parameters: 12 nodes, p ≥ 1e-300 (unbounded without the budget).
      causalAnalysis({
        model,
        target: "STAT1|PROTEIN",
        degs: c.degs,
        topNCausalDegs: 100_000,
        minPathProbability: 1e-300,
        maxPathLength: 12,
      });
    } catch (err) {
      failure = err;
    }
    expect(failure).toBeInstanceOf(JobFailure);
    expect((failure as JobFailure).code).toBe("path_search_too_large");
    expect((failure as JobFailure).message).toMatch(/min_path_probability/);
    // Bounded work: well under the time a heap exhaustion took (8 s), on a loaded machine too.
    expect(performance.now() - started).toBeLessThan(6000);
  });

  it("leaves the default thresholds far inside the budget", async () => {
    const t = model.nodeIndex("STAT1|PROTEIN", "PROTEIN");
    const all = new Set<number>();
    const small = {
      edgeSteps: DEFAULT_PATH_SEARCH_BUDGET.edgeSteps / 100,
      heldPaths: DEFAULT_PATH_SEARCH_BUDGET.heldPaths / 100,
    };
    // 1% of the budget is enough for the defaults (L = 6, p ≥ 1e-4).
    expect(() => enumeratePaths(model, t, all, 1e-4, 6, small)).not.toThrow();
  });
});
