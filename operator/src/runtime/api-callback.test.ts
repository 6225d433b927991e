import { afterEach, describe, expect, it } from "vitest";
import { RunnerCallback, deriveCallbackKey, verifyCallback } from "@causeway/contract";
import { callbackEndpoint, type CallbackEndpoint } from "../../../test/builders/callback-endpoint.ts";
import { httpFailureReporter, type FailureReport } from "./api-callback.ts";

let api: CallbackEndpoint | undefined;
afterEach(() => api?.close());

const JOB = "0b6c52b4-5a0f-4e2c-9f1e-2f0e8a4c7d11";
const report: FailureReport = {
  kind: "prediction",
  jobId: JOB,
  errorCode: "out_of_memory",
  message: "The runner ran out of memory.",
};

describe("httpFailureReporter", () => {
  it("posts a signed, schema-valid, non-billable failed callback to the job's callback route", async () => {
    api = await callbackEndpoint();
    const { base, received: got } = api;
    const gaveUp: string[] = [];
    await httpFailureReporter({
      // A trailing slash on the base URL is harmless.
      baseUrl: `${base}/`,
      serverSecret: "s".repeat(32),
      onGiveUp: (_, r) => gaveUp.push(r),
    })(report);
    expect(gaveUp).toEqual([]);
    expect(got).toHaveLength(1);
    expect(got[0]!.url).toBe(`/internal/v1/jobs/prediction/${JOB}/callback`);
    const key = deriveCallbackKey("s".repeat(32), JOB);
    expect(
      verifyCallback(key, got[0]!.timestamp, got[0]!.body, got[0]!.signature, Math.floor(Date.now() / 1000)),
    ).toBe("ok");
    expect(RunnerCallback.parse(JSON.parse(got[0]!.body))).toMatchObject({
      status: "failed",
      error_code: "out_of_memory",
      billable: false,
      attempt: "operator",
    });
  });

  it("retries server errors, stops on a client error and says why it gave up", async () => {
    api = await callbackEndpoint([503, 401]);
    const { base, received: got } = api;
    const gaveUp: string[] = [];
    await httpFailureReporter({
      baseUrl: base,
      serverSecret: "s".repeat(32),
      sleep: async () => {},
      onGiveUp: (_, r) => gaveUp.push(r),
    })(report);
    expect(got).toHaveLength(2);
    expect(gaveUp).toEqual(["HTTP 401"]);
  });
});
