import { describe, expect, it } from "vitest";
import { aCausalAnalysis, aPrediction, observed, testConfig } from "../../../test/builders/prediction.ts";
import { reconcileCausalAnalysis } from "./causal-analysis.ts";
import { decide } from "./decide.ts";
import { reconcilePrediction } from "./prediction.ts";

describe("decide", () => {
  const config = testConfig();

  it("runs the reconcile function of the resource's kind", () => {
    const prediction = observed(aPrediction().build());
    const analysis = observed(aCausalAnalysis());
    expect(decide("prediction", prediction, config)).toEqual(reconcilePrediction(prediction, config));
    expect(decide("causal_analysis", analysis, config)).toEqual(reconcileCausalAnalysis(analysis, config));
    // Each kind's spec check differs: the other kind's function would fail the resource.
    expect(decide("causal_analysis", analysis, config).status?.phase).not.toBe("Failed");
    expect(decide("prediction", analysis, config).status?.phase).toBe("Failed");
  });
});
