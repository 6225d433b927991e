import { ARTIFACT_DESCRIPTIONS, ARTIFACTS } from "@causeway/contract";
import { describe, expect, it } from "vitest";
import { artifactDescription } from "./artifact-descriptions.ts";

describe("artifactDescription", () => {
  it("gives every contract artifact its own line, with or without a result-set prefix", () => {
    for (const name of Object.values(ARTIFACTS)) {
      expect(artifactDescription(name), name).toBe(ARTIFACT_DESCRIPTIONS[name]);
      expect(artifactDescription(`IFN-beta.${name}`), name).toBe(ARTIFACT_DESCRIPTIONS[name]);
    }
  });

  it("prefers the longest basename: the matrix's ids are not described as a plain JSON file", () => {
    expect(artifactDescription("source_influence_matrix.ids.json")).toBe(
      ARTIFACT_DESCRIPTIONS["source_influence_matrix.ids.json"],
    );
  });

  it("says nothing of a file the contract does not describe", () => {
    expect(artifactDescription("notes.txt")).toBeNull();
    expect(artifactDescription("xdegs.tsv")).toBeNull();
  });
});
