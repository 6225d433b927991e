import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { buildTestApp, submit, type TestApp } from "../testing/helper.ts";
import { setQuota } from "./accounts.ts";
import { cachedQuota } from "./quota-cache.ts";

describe("cachedQuota", () => {
  it("answers from memory for its lifetime only", async () => {
    let now = 0;
    let reads = 0;
    const db = {};
    const read = async () => ({
      total_quota_requests: 5,
      consumed_quota_requests: reads++,
      remaining_quota_requests: 5,
    });
    expect((await cachedQuota(db, "a", read, () => now)).consumed_quota_requests).toBe(0);
    now = 499;
    expect((await cachedQuota(db, "a", read, () => now)).consumed_quota_requests).toBe(0);
    now = 500;
    expect((await cachedQuota(db, "a", read, () => now)).consumed_quota_requests).toBe(1);
  });
});

describe("GET /v1/usage/predictions/quota with the cache (embedded mode)", () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await buildTestApp({ CAUSEWAY_DEFAULT_QUOTA: "10", CAUSEWAY_INFLIGHT_LIMIT: "100" });
  }, 120_000);
  afterAll(async () => t.close());

  const quota = async (key: string) =>
    (await t.app.inject({ url: "/v1/usage/predictions/quota", headers: { "x-api-key": key } })).json<{
      consumed_quota_requests: number;
      total_quota_requests: number;
    }>();

  it("shows a submission, a refunded failure and a new total at once", async () => {
    const a = await t.account("external");
    expect((await quota(a.key)).consumed_quota_requests).toBe(0);
    const id = await submit(t, a.key);
    expect((await quota(a.key)).consumed_quota_requests).toBe(1);
    const res = await t.callback({
      job_id: id,
      kind: "prediction",
      attempt: "x",
      seq: 1,
      status: "failed",
      error_code: "internal_error",
      error_message: "boom",
      billable: false,
      result_files: [],
    });
    expect(res.statusCode).toBe(200);
    expect((await quota(a.key)).consumed_quota_requests).toBe(0);
    await setQuota(t.ctx.db, a.id, 3);
    expect((await quota(a.key)).total_quota_requests).toBe(3);
  });
});
