import { describe, expect, it } from "vitest";
import { largeInputs, toyInputs } from "../../test/fixtures/graph.ts";
import { MAX_NODES, selectGraph } from "./select.ts";

describe("selectGraph", () => {
  it("draws the kept paths of the first top_n_degs DEGs of D_t only", () => {
    // D_t = (y, x, z): the first DEG is y, reached through B and through C.
    const one = selectGraph(toyInputs(), 1);
    expect(one.nodes.map((n) => n.id)).toEqual(["A|PROTEIN", "B|PROTEIN", "C|PROTEIN", "y|RNA"]);
    expect(one.edges.map((e) => e.id)).toEqual([
      "A|PROTEIN>B|PROTEIN",
      "A|PROTEIN>C|PROTEIN",
      "B|PROTEIN>y|RNA",
      "C|PROTEIN>y|RNA",
    ]);
    expect([one.topN, one.degsShown, one.pathsShown, one.pathsOmitted]).toEqual([1, 1, 2, 0]);

    const two = selectGraph(toyInputs(), 2);
    expect(two.nodes.filter((n) => n.kind === "deg").map((n) => n.symbol)).toEqual(["x", "y"]);
    expect(two.pathsShown).toBe(3);
  });

  it("draws each edge once with the summed score of the paths through it", () => {
    const all = selectGraph(toyInputs(), 10);
    const score = Object.fromEntries(all.edges.map((e) => [e.id, e.score]));
    expect(score["A|PROTEIN>B|PROTEIN"]).toBeCloseTo(0.125, 15);
    expect(score["B|PROTEIN>x|RNA"]).toBeCloseTo(0.0625, 15);
    expect(all.edges.find((e) => e.id === "C|PROTEIN>y|RNA")).toMatchObject({
      sign: -1,
      type: "transcriptional",
    });
    expect(all.topN).toBe(3);
  });

  it("labels nodes by kind and symbol, with the gene's fold change or null", () => {
    const all = selectGraph(toyInputs(), 3);
    const byId = new Map(all.nodes.map((n) => [n.id, n]));
    expect(byId.get("A|PROTEIN")).toEqual({ id: "A|PROTEIN", symbol: "A", kind: "target", log2fc: -0.6 });
    expect(byId.get("B|PROTEIN")!.kind).toBe("intermediary");
    expect(byId.get("z|RNA")).toMatchObject({ kind: "deg", log2fc: null });
  });

  it("counts top DEGs without a kept path", () => {
    const inputs = toyInputs();
    inputs.paths = inputs.paths.filter((p) => p.deg !== "x|RNA");
    const s = selectGraph(inputs, 3);
    expect([s.degsShown, s.degsWithoutPath, s.pathsShown]).toEqual([2, 1, 3]);
  });

  it("caps the graph at 250 nodes by dropping DEGs from the end of D_t", () => {
    const inputs = largeInputs(400);
    const s = selectGraph(inputs, 400);
    expect(s.nodes.length).toBeLessThanOrEqual(MAX_NODES);
    // 1 target + 20 + 20 relays: the remaining 209 nodes are the first 209 DEGs.
    const shownDegs = s.nodes.filter((n) => n.kind === "deg").map((n) => n.id);
    expect(shownDegs).toEqual(inputs.degs.slice(0, 209).map((d) => d.id));
    expect(s.nodes.length).toBe(MAX_NODES);
    const omitted = inputs.paths.filter((p) => !shownDegs.includes(p.deg)).length;
    expect(s.pathsOmitted).toBe(omitted);
    expect(s.pathsShown + s.pathsOmitted).toBe(inputs.paths.length);
  });

  it("does not cap, nor count omissions, below 250 nodes", () => {
    const s = selectGraph(largeInputs(400), 150);
    expect(s.pathsOmitted).toBe(0);
    expect(s.degsShown).toBe(150);
  });

  it("keeps the first DEG's paths while they fit when that DEG alone exceeds the cap", () => {
    const inputs = largeInputs(1);
    inputs.paths = Array.from({ length: 300 }, (_, i) => ({
      deg: "D000|RNA",
      nodes: ["T|PROTEIN", `R${i}|PROTEIN`, "D000|RNA"],
      score_path_given_target: 0.001,
      edge_signs: [1, 1],
      edge_types: ["signaling", "transcriptional"],
    }));
    const s = selectGraph(inputs, 1);
    expect(s.nodes.length).toBe(MAX_NODES);
    expect(s.pathsShown).toBe(MAX_NODES - 2);
    expect(s.pathsOmitted).toBe(300 - (MAX_NODES - 2));
  });
});
