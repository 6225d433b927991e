import { describe, expect, it } from "vitest";
import { aCausalAnalysis, JOB_ID, T0, testConfig } from "../../../test/builders/prediction.ts";
import { reconcileCausalAnalysis } from "./causal-analysis.ts";

const config = testConfig();

describe("reconcileCausalAnalysis", () => {
  it("creates a cw-ca Job for a new resource", () => {
    const d = reconcileCausalAnalysis({ resource: aCausalAnalysis(), job: null, pods: [], now: T0 }, config);
    const create = d.actions.find((a) => a.type === "createJob");
    expect(create?.type === "createJob" && create.job.metadata?.name).toBe(`cw-ca-${JOB_ID}`);
    expect(d.status?.phase).toBe("Pending");
  });

  it("rejects a spec without prediction artifacts", () => {
    const d = reconcileCausalAnalysis(
      { resource: aCausalAnalysis({ prediction_artifacts: {} }), job: null, pods: [], now: T0 },
      config,
    );
    expect(d.status?.conditions?.find((c) => c.type === "Failed")?.reason).toBe("InvalidSpec");
    expect(d.actions.some((a) => a.type === "createJob")).toBe(false);
  });
});
