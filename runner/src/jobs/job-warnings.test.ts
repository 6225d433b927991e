import { describe, expect, it } from "vitest";
import type { ScoreTargetsResult } from "../scoring/index.ts";
import type { Contrast } from "./contrast.ts";
import { collectWarnings } from "./job-warnings.ts";

describe("the job's warnings", () => {
  // Only the fields collectWarnings reads: a contrast without input checks or DE.
  const contrast = (prefix: string) => ({ prefix, metadata: {} }) as unknown as Contrast;
  const scores = (warnings: ScoreTargetsResult["warnings"]) =>
    ({ rows: [], n: 10, N: 1000, warnings }) as unknown as ScoreTargetsResult;
  const few = { code: "few_development_experiments", message: "Model v4 was fitted on 3 such experiments." };

  it("carry the scoring's own warnings, named by result set, once per code", () => {
    const warnings = collectWarnings({
      contrasts: [contrast("cd14/"), contrast("b/")],
      scores: [scores([few]), scores([few])],
      species: "human",
      orthologues: null,
      suppliedDegs: null,
    });
    expect(warnings).toEqual([{ code: few.code, message: `${few.message} (result set cd14)` }]);
  });

  it("say in a sentence what the input checks recorded by code", () => {
    const checked = {
      prefix: "",
      metadata: {},
      prepared: {
        metadata: {
          warnings: ["paired_by_sample_ids", "arm_labels_unclear:perturbed"],
          subsampled: [],
          genes: { nInput: 0, nUnresolved: 0, unresolvedExamples: [] },
        },
      },
    } as unknown as Contrast;
    const warnings = collectWarnings({
      contrasts: [checked],
      scores: [scores(undefined)],
      species: "human",
      orthologues: null,
      suppliedDegs: null,
    });
    expect(warnings.map((w) => w.code)).toEqual(["paired_by_sample_ids", "arm_labels_unclear"]);
    expect(warnings[0]!.message).toContain("read as paired");
    expect(warnings[1]!.message).toContain("uploaded as the right arm");
  });

  it("are empty when neither the inputs nor the scoring say anything", () => {
    const warnings = collectWarnings({
      contrasts: [contrast("")],
      scores: [scores(undefined)],
      species: "human",
      orthologues: null,
      suppliedDegs: null,
    });
    expect(warnings).toEqual([]);
  });
});
