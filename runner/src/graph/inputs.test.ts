import { describe, expect, it } from "vitest";
import { interferonInputs, largeInputs, toyInputs } from "../../test/fixtures/graph.ts";
import {
  InvalidGraphInputs,
  parseCausalGraphInputs,
  parseCausalGraphInputsText,
  type CausalGraphInputs,
} from "./inputs.ts";

/** The issues a broken copy of the toy inputs is rejected with. */
function issuesOf(mutate: (inputs: CausalGraphInputs) => void): string[] {
  const inputs = structuredClone(toyInputs());
  mutate(inputs);
  try {
    parseCausalGraphInputs(inputs);
  } catch (error) {
    expect(error).toBeInstanceOf(InvalidGraphInputs);
    return (error as InvalidGraphInputs).issues;
  }
  throw new Error("expected InvalidGraphInputs");
}

describe("parseCausalGraphInputs", () => {
  it("accepts the fixtures and survives a JSON round trip", () => {
    for (const inputs of [toyInputs(), interferonInputs(), largeInputs(400)]) {
      expect(parseCausalGraphInputs(JSON.parse(JSON.stringify(inputs)))).toEqual(inputs);
    }
  });

  it("rejects a missing file and non-objects", () => {
    for (const json of [undefined, null, "x", 3, []]) {
      expect(() => parseCausalGraphInputs(json)).toThrow(InvalidGraphInputs);
    }
  });

  it("parses the stored file's text, rejecting a missing file and malformed JSON", () => {
    expect(parseCausalGraphInputsText(JSON.stringify(toyInputs()))).toEqual(toyInputs());
    expect(() => parseCausalGraphInputsText(null)).toThrow(/missing/);
    expect(() => parseCausalGraphInputsText(undefined)).toThrow(InvalidGraphInputs);
    expect(() => parseCausalGraphInputsText("{ not json")).toThrow(InvalidGraphInputs);
    expect(() => parseCausalGraphInputsText("{}")).toThrow(/version/);
  });

  it("rejects unknown versions and out-of-range options", () => {
    expect(issuesOf((i) => Object.assign(i, { version: 2 }))).toEqual([expect.stringMatching(/^version:/)]);
    expect(issuesOf((i) => (i.options.min_path_probability = 0))[0]).toMatch(
      /^options\.min_path_probability:/,
    );
    expect(issuesOf((i) => (i.options.max_path_length = 2.5))[0]).toMatch(/^options\.max_path_length:/);
  });

  it("rejects non-canonical and wrongly typed entity ids", () => {
    expect(issuesOf((i) => (i.target = "A|protein"))).toContain("target: must be a SYMBOL|PROTEIN entity id");
    expect(issuesOf((i) => (i.degs[0]!.id = "y|PROTEIN"))).toContain(
      "degs.0.id: must be a SYMBOL|RNA entity id",
    );
    expect(issuesOf((i) => i.degs.push({ id: "x|RNA", score_deg_given_target: 0.01 }))).toContain(
      "degs.3.id: duplicate DEG x|RNA",
    );
  });

  it("rejects paths that do not go from the target to their DEG", () => {
    expect(issuesOf((i) => (i.paths[0]!.deg = "q|RNA"))).toEqual(
      expect.arrayContaining([
        "paths.0.deg: q|RNA is not among degs",
        "paths.0.nodes: a path must end at its deg",
      ]),
    );
    expect(issuesOf((i) => (i.paths[1]!.nodes[0] = "B|PROTEIN"))).toContain(
      "paths.1.nodes.0: a path must start at the target",
    );
    expect(issuesOf((i) => (i.paths[1]!.nodes[1] = "C|RNA"))).toContain(
      "paths.1.nodes.1: all but the last node must be proteins",
    );
    expect(issuesOf((i) => (i.options.max_path_length = 2))).toContain(
      "paths.0.nodes: path longer than max_path_length",
    );
  });

  it("rejects edge attributes that do not match the path", () => {
    expect(issuesOf((i) => i.paths[0]!.edge_signs.pop())).toContain("paths.0.edge_signs: expected 2 signs");
    expect(issuesOf((i) => (i.paths[0]!.edge_types = ["signaling", "signaling"]))).toContain(
      "paths.0.edge_types.1: edge 1 must be transcriptional",
    );
    expect(issuesOf((i) => (i.paths[2]!.edge_signs[0] = -1))).toContain(
      "paths.2.edge_signs.0: conflicting signs for A|PROTEIN → B|PROTEIN",
    );
    expect(issuesOf((i) => (i.paths[0]!.score_path_given_target = Number.NaN))[0]).toMatch(
      /^paths\.0\.score_path_given_target:/,
    );
  });

  it("reports the problems in the error message", () => {
    expect(() => parseCausalGraphInputs({ ...toyInputs(), log2fc: { A: "up" } })).toThrow(/log2fc\.A/);
  });
});
