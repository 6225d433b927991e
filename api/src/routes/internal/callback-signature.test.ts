import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { RunnerCallback } from "@causeway/contract";
import { buildTestApp, submit, type TestApp } from "../../testing/helper.ts";

let t: TestApp;
let job: string;
beforeAll(async () => {
  t = await buildTestApp();
  job = await submit(t, (await t.account("internal")).key);
}, 120_000);
afterAll(async () => t.close());

describe("a runner callback with a bad signature", () => {
  it("is a 401 that speaks of the signature, not of an API key", async () => {
    const cb: RunnerCallback = {
      job_id: job,
      kind: "prediction",
      attempt: "local-1",
      seq: 0,
      status: "processing",
      processing_step: "model_loaded",
      progress_pct: 45,
    };
    for (const options of [{ secret: "another-secret-another-secret-0123456789" }, { timestamp: 1 }]) {
      const res = await t.callback(cb, options);
      expect(res.statusCode).toBe(401);
      expect(JSON.parse(res.body)).toEqual({ detail: "Missing, stale or invalid callback signature." });
    }
  });
});
