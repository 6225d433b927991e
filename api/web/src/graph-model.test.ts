import { describe, expect, it } from "vitest";
import { CausalGraphInputs } from "@causeway/runner/graph/inputs";
import { MAX_ROWS, graphModel, graphSummary, nodesInReadingOrder } from "./graph-model.ts";

/** A star: the target reaches each of `n` DEGs directly (the shape of a transcription factor's graph). */
function star(n: number): CausalGraphInputs {
  const degs = Array.from({ length: n }, (_, i) => `G${i}`);
  return CausalGraphInputs.parse({
    version: 1,
    target: "TF|PROTEIN",
    model_version: "v3",
    options: { min_path_probability: 1e-4, min_path_fraction: 0.1, max_path_length: 6 },
    degs: degs.map((g, i) => ({ id: `${g}|RNA`, score_deg_given_target: 0.5 / (i + 1) })),
    paths: degs.map((g, i) => ({
      deg: `${g}|RNA`,
      nodes: ["TF|PROTEIN", `${g}|RNA`],
      score_path_given_target: 0.5 / (i + 1),
      edge_signs: [1],
      edge_types: ["transcriptional"],
    })),
    log2fc: Object.fromEntries([["TF", 1], ...degs.map((g) => [g, 2])]),
  });
}

function extent(values: number[]): number {
  return Math.max(...values) - Math.min(...values);
}

describe("graphModel layout", () => {
  it("keeps a short layer in one column", () => {
    const model = graphModel(star(MAX_ROWS), MAX_ROWS);
    const degs = model.nodes.filter((n) => n.layer === 1);
    expect(degs).toHaveLength(MAX_ROWS);
    expect(new Set(degs.map((n) => n.x)).size).toBe(1);
  });

  it("wraps a tall layer into sub-columns so the graph stays about as wide as it is tall", () => {
    const model = graphModel(star(26), 26);
    const degs = model.nodes.filter((n) => n.layer === 1);
    expect(degs).toHaveLength(26);
    expect(new Set(degs.map((n) => n.x)).size).toBe(3);
    // No more than MAX_ROWS rows, and no two nodes on the same spot.
    expect(new Set(degs.map((n) => n.y)).size).toBeLessThanOrEqual(MAX_ROWS);
    expect(new Set(degs.map((n) => `${n.x},${n.y}`)).size).toBe(26);
    const height = extent(model.nodes.map((n) => n.y));
    const width = extent(model.nodes.map((n) => n.x));
    expect(height).toBeLessThan(width * 1.5);
    // The target stays left of every DEG.
    const target = model.nodes.find((n) => n.id === "TF|PROTEIN")!;
    expect(Math.min(...degs.map((n) => n.x))).toBeGreaterThan(target.x);
  });
});

/** STAT1 → IRF1 → GBP1, STAT1 → IRF9 → GBP1, STAT1 → CXCL10 (two proteins between target and DEGs). */
function chain(): CausalGraphInputs {
  const path = (nodes: string[], score: number) => ({
    deg: nodes[nodes.length - 1]!,
    nodes,
    score_path_given_target: score,
    edge_signs: nodes.slice(1).map(() => 1),
    edge_types: nodes.slice(1).map((_, i) => (i === nodes.length - 2 ? "transcriptional" : "signaling")),
  });
  return CausalGraphInputs.parse({
    version: 1,
    target: "STAT1|PROTEIN",
    model_version: "v3",
    options: { min_path_probability: 1e-4, min_path_fraction: 0.1, max_path_length: 6 },
    degs: [
      { id: "GBP1|RNA", score_deg_given_target: 0.3 },
      { id: "CXCL10|RNA", score_deg_given_target: 0.2 },
    ],
    paths: [
      path(["STAT1|PROTEIN", "IRF1|PROTEIN", "GBP1|RNA"], 0.2),
      path(["STAT1|PROTEIN", "IRF9|PROTEIN", "GBP1|RNA"], 0.1),
      path(["STAT1|PROTEIN", "CXCL10|RNA"], 0.2),
    ],
    log2fc: { STAT1: 2, IRF1: 3, IRF9: null, GBP1: 5, CXCL10: 4 },
  });
}

describe("the graph in words and as a keyboard list", () => {
  it("summarises the proteins, edges and DEGs it shows", () => {
    expect(graphSummary(graphModel(chain(), 20), "STAT1")).toBe(
      "Causal graph of STAT1: 3 proteins, 5 edges, from STAT1 to 2 DEGs",
    );
    expect(graphSummary(graphModel(star(1), 1), "TF")).toBe(
      "Causal graph of TF: 1 protein, 1 edge, from TF to 1 DEG",
    );
  });

  it("lists every node once, the target first, then layer by layer", () => {
    const model = graphModel(chain(), 20);
    const order = nodesInReadingOrder(model);
    expect(order.map((n) => n.id).sort()).toEqual(model.nodes.map((n) => n.id).sort());
    expect(order[0]!.id).toBe("STAT1|PROTEIN");
    const layers = order.map((n) => n.layer);
    expect(layers).toEqual([...layers].sort((a, b) => a - b));
    expect(order.at(-1)!.kind).toBe("deg");
  });
});
