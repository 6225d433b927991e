import { describe, expect, it } from "vitest";
import type { CausalGraphInputs } from "@causeway/runner/graph/inputs";
import { explanationFromInputs, explanationFromRoutes, pathText } from "./explanation.ts";

const inputs: CausalGraphInputs = {
  version: 1,
  target: "STAT1|PROTEIN",
  model_version: "v2",
  options: { min_path_probability: 0.0001, min_path_fraction: 0.1, max_path_length: 6 },
  degs: [
    { id: "IRF2|RNA", score_deg_given_target: 0.3 },
    { id: "GBP1|RNA", score_deg_given_target: 0.2 },
  ],
  paths: [
    {
      deg: "IRF2|RNA",
      nodes: ["STAT1|PROTEIN", "IRF2|PROTEIN", "IRF2|RNA"],
      score_path_given_target: 0.2,
      edge_signs: [1, 1],
      edge_types: ["signaling", "transcriptional"],
    },
    {
      deg: "GBP1|RNA",
      nodes: ["STAT1|PROTEIN", "IRF1|PROTEIN", "IRF2|PROTEIN", "GBP1|RNA"],
      score_path_given_target: 0.1,
      edge_signs: [1, 1, 1],
      edge_types: ["signaling", "signaling", "transcriptional"],
    },
  ],
  log2fc: { IRF2: 1.5, GBP1: 4 },
} as CausalGraphInputs;

describe("explanation", () => {
  it("tells a protein from its RNA in a path", () => {
    const e = explanationFromInputs(inputs);
    expect(pathText(e.paths[0]!.steps)).toBe("STAT1 → IRF2 → IRF2 (RNA)");
    expect(e.paths[1]!.degLog2fc).toBe(4);
  });

  it("keeps every impacted DEG and ranks intermediaries by summed path score", () => {
    const e = explanationFromInputs(inputs);
    expect(e.degs).toEqual(["IRF2", "GBP1"]);
    expect(e.intermediaries).toEqual(["IRF2", "IRF1"]);
  });

  it("reads the route's symbol paths with the DEG as RNA", () => {
    const e = explanationFromRoutes(
      {
        prediction_id: "00000000-0000-0000-0000-000000000000",
        degs: ["IRF2"],
        degs_total: 1,
        paths: [
          {
            deg: "IRF2",
            target: "STAT1",
            path: "STAT1>IRF2>IRF2",
            length: 2,
            score_path_given_target: 0.2,
            path_logFC: null,
            deg_logFC: 1.5,
          },
        ],
      },
      ["IRF2"],
    );
    expect(pathText(e.paths[0]!.steps)).toBe("STAT1 → IRF2 → IRF2 (RNA)");
  });
});
