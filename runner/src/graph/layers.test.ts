import { describe, expect, it } from "vitest";
import { toyInputs } from "../../test/fixtures/graph.ts";
import type { CausalGraphInputs } from "./inputs.ts";
import { assignLayers } from "./layers.ts";
import { selectGraph } from "./select.ts";

const p = (ids: string[]): CausalGraphInputs["paths"][number] => ({
  deg: ids[ids.length - 1]!,
  nodes: ids,
  score_path_given_target: 0.01,
  edge_signs: ids.slice(1).map(() => 1 as const),
  edge_types: ids.slice(1).map((_, k) => (k === ids.length - 2 ? "transcriptional" : "signaling")),
});

describe("assignLayers", () => {
  it("puts the target first, intermediaries at their distance, DEGs last", () => {
    const { layerOf, count } = assignLayers(selectGraph(toyInputs(), 3));
    expect(count).toBe(3);
    expect(Object.fromEntries(layerOf)).toEqual({
      "A|PROTEIN": 0,
      "B|PROTEIN": 1,
      "C|PROTEIN": 1,
      "x|RNA": 2,
      "y|RNA": 2,
      "z|RNA": 2,
    });
  });

  it("uses the shortest distance over displayed edges, and a common last layer for DEGs", () => {
    const inputs: CausalGraphInputs = {
      ...toyInputs(),
      degs: [
        { id: "x|RNA", score_deg_given_target: 0.1 },
        { id: "y|RNA", score_deg_given_target: 0.05 },
      ],
      // T>B>C>D>x makes D deep; T>D>y makes it shallow again; T>y is a direct TF edge.
      paths: [
        p(["A|PROTEIN", "B|PROTEIN", "C|PROTEIN", "D|PROTEIN", "x|RNA"]),
        p(["A|PROTEIN", "D|PROTEIN", "y|RNA"]),
        p(["A|PROTEIN", "y|RNA"]),
      ],
    };
    const { layerOf, count } = assignLayers(selectGraph(inputs, 2));
    expect(Object.fromEntries(layerOf)).toMatchObject({
      "B|PROTEIN": 1,
      "C|PROTEIN": 2,
      "D|PROTEIN": 1,
      "x|RNA": 3,
      "y|RNA": 3,
    });
    expect(count).toBe(4);
  });

  it("has a single layer when no path is shown", () => {
    const inputs = { ...toyInputs(), paths: [] };
    expect(assignLayers(selectGraph(inputs, 3)).count).toBe(1);
  });
});
