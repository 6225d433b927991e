import { describe, expect, it } from "vitest";
import { predictionSpec } from "../../test/builders/prediction.ts";
import { JobSpec, PredictionJobSpec, targetValidationViolations } from "./job-spec.ts";

const split = { shape: "split", control_key: "c", perturbed_key: "p", degs_key: "d" } as const;
const merged = { shape: "merged", dataset_key: "m" } as const;

describe("contract rule 1: target_validation needs a target and the split inputs", () => {
  it.each([
    ["target_id, merged, no target", "target_id", null, merged, []],
    ["target_id, split, a target", "target_id", "STAT1|PROTEIN", split, []],
    ["target_validation, split, a target", "target_validation", "STAT1|PROTEIN", split, []],
    ["target_validation without a target", "target_validation", null, split, ["target"]],
    ["target_validation, merged", "target_validation", "STAT1|PROTEIN", merged, ["inputs"]],
    ["target_validation, merged, no target", "target_validation", null, merged, ["target", "inputs"]],
  ] as const)("%s", (_name, job_type, target, inputs, want) => {
    expect(targetValidationViolations({ job_type, target, inputs })).toEqual(want);
    const parsed = PredictionJobSpec.safeParse(predictionSpec({ job_type, target, inputs }));
    expect(parsed.error?.issues.map((i) => i.path) ?? []).toEqual(want.map((f) => [f]));
    // The runner's parse of any job spec applies the same rule.
    expect(JobSpec.safeParse(predictionSpec({ job_type, target, inputs })).success).toBe(want.length === 0);
  });

  it("is not consulted while the spec's shape is wrong: the shape errors come alone", () => {
    const parsed = PredictionJobSpec.safeParse({
      ...predictionSpec({ job_type: "target_validation" }),
      job_id: 1,
    });
    expect(parsed.error?.issues.map((i) => i.path)).toEqual([["job_id"]]);
  });
});
