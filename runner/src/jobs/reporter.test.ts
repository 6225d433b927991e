import { afterEach, describe, expect, it } from "vitest";
import { RunnerCallback, deriveCallbackKey, verifyCallback } from "@causeway/contract";
import { callbackEndpoint, type CallbackEndpoint } from "../../../test/builders/callback-endpoint.ts";
import { HttpCallbackReporter } from "./reporter.ts";

let api: CallbackEndpoint | undefined;
afterEach(() => api?.close());

async function endpoint(
  statuses: number[],
): Promise<{ url: string; received: CallbackEndpoint["received"] }> {
  api = await callbackEndpoint(statuses);
  return { url: `${api.base}/callback`, received: api.received };
}

const JOB = "6f1c2b1e-8d4a-4c55-9f44-0d0b2c9a7e11";
const key = deriveCallbackKey("server-secret", JOB);
const noSleep = async () => {};

describe("HttpCallbackReporter", () => {
  it("sends signed, schema-valid callbacks with increasing seq and stage timings", async () => {
    const { url, received } = await endpoint([]);
    const reporter = new HttpCallbackReporter(
      { url, keyHex: key, jobId: JOB, kind: "prediction", attempt: "a1" },
      { sleep: noSleep },
    );
    await reporter.step("inputs_downloaded");
    await reporter.finish({
      status: "completed",
      result_files: [{ name: "run_metadata.json", key: "k/run_metadata.json" }],
      result_sets: [""],
    });
    expect(received).toHaveLength(2);
    const now = Math.floor(Date.now() / 1000);
    for (const r of received) expect(verifyCallback(key, r.timestamp, r.body, r.signature, now)).toBe("ok");
    const [first, last] = received.map((r) => RunnerCallback.parse(JSON.parse(r.body)));
    expect(first).toMatchObject({
      status: "processing",
      processing_step: "inputs_downloaded",
      progress_pct: 5,
      seq: 0,
    });
    expect(last).toMatchObject({ status: "completed", seq: 1, attempt: "a1", job_id: JOB });
    expect(first!.stage_seconds).toBeGreaterThanOrEqual(0);
    expect(first!.peak_rss_bytes).toBeGreaterThan(0);
  });

  it("does not hold the job up for progress: steps return at once and reach the API in order before the final report", async () => {
    const { url, received } = await endpoint([503, 503]);
    const reporter = new HttpCallbackReporter(
      { url, keyHex: key, jobId: JOB, kind: "prediction", attempt: "a1" },
      { sleep: noSleep, log: () => {} },
    );
    await reporter.step("inputs_downloaded");
    await reporter.step("inputs_validated");
    // The first step is still being retried through two 503s: nothing waited for it.
    expect(received).toHaveLength(0);
    await reporter.finish({ status: "completed", result_files: [], result_sets: [""] });
    const bodies = received.map((r) => RunnerCallback.parse(JSON.parse(r.body)));
    expect(bodies.map((b) => b.seq)).toEqual([0, 0, 0, 1, 2]);
    expect(bodies.at(-1)!.status).toBe("completed");
  });

  it("retries the final report through server errors", async () => {
    const { url, received } = await endpoint([503, 500]);
    const reporter = new HttpCallbackReporter(
      { url, keyHex: key, jobId: JOB, kind: "prediction", attempt: "a1" },
      { sleep: noSleep, log: () => {} },
    );
    await reporter.finish({
      status: "failed",
      error_code: "internal_error",
      error_message: "x",
      billable: false,
      result_files: [],
    });
    expect(received).toHaveLength(3);
  });

  it("gives up at once when the API rejects the callback (4xx), and says the final report was lost", async () => {
    const { url, received } = await endpoint([401]);
    const reporter = new HttpCallbackReporter(
      { url, keyHex: key, jobId: JOB, kind: "prediction", attempt: "a1" },
      { sleep: noSleep, log: () => {} },
    );
    await expect(
      reporter.finish({
        status: "failed",
        error_code: "internal_error",
        error_message: "x",
        billable: false,
        result_files: [],
      }),
    ).rejects.toThrow(/could not be delivered/);
    expect(received).toHaveLength(1);
  });

  it("a tampered body does not verify", async () => {
    const { url, received } = await endpoint([]);
    const reporter = new HttpCallbackReporter(
      { url, keyHex: key, jobId: JOB, kind: "prediction", attempt: "a1" },
      { sleep: noSleep },
    );
    await reporter.step("inputs_validated");
    await reporter.flush();
    const r = received[0]!;
    const now = Math.floor(Date.now() / 1000);
    expect(
      verifyCallback(
        key,
        r.timestamp,
        r.body.replace("inputs_validated", "results_uploaded"),
        r.signature,
        now,
      ),
    ).toBe("bad_signature");
    expect(
      verifyCallback(
        deriveCallbackKey("server-secret", "another-job"),
        r.timestamp,
        r.body,
        r.signature,
        now,
      ),
    ).toBe("bad_signature");
    expect(verifyCallback(key, r.timestamp - 301, r.body, r.signature, now)).toBe("stale");
  });
});
