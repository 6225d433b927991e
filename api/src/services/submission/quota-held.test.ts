/**
 * A quota unit held by a submission still in progress does not refuse another submission that
 * would fit once the holder ends: it waits for the holder, and is refused only when recorded
 * predictions use the quota.
 */
import { PassThrough } from "node:stream";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { getQuota } from "../../db/accounts.ts";
import { buildTestApp, splitForm, type TestApp } from "../../testing/helper.ts";

let t: TestApp;
beforeAll(async () => {
  t = await buildTestApp({ CAUSEWAY_INFLIGHT_LIMIT: "1000", CAUSEWAY_RATE_LIMIT: "100000" });
}, 120_000);
afterAll(async () => t.close());

const post = (key: string) => {
  const form = splitForm();
  return t.app.inject({
    method: "POST",
    url: "/v1/predictions",
    headers: { ...form.headers, "x-api-key": key },
    payload: form.payload,
  });
};

async function until(check: () => Promise<boolean>): Promise<void> {
  for (let i = 0; i < 200 && !(await check()); i++) await new Promise((r) => setTimeout(r, 25));
}

describe("quota units held by submissions in progress", () => {
  it("a submission waits for a unit held by an upload in progress; accepted when that upload fails", async () => {
    const a = await t.account("external", 1);
    // The first submission takes the only unit, then its upload stalls halfway.
    const form = splitForm();
    const body = new PassThrough();
    body.write(form.payload.subarray(0, form.payload.length / 2));
    const first = t.app.inject({
      method: "POST",
      url: "/v1/predictions",
      headers: { ...form.headers, "x-api-key": a.key },
      payload: body,
    });
    await until(async () => (await getQuota(t.ctx.db, a.id, 100)).consumed_quota_requests === 1);
    let answered = false;
    const second = post(a.key).then((res) => {
      answered = true;
      return res;
    });
    await new Promise((r) => setTimeout(r, 500));
    expect(answered).toBe(false);
    // The first upload ends cut short: refused, its unit given back, taken by the second.
    body.end("--broken");
    expect((await first).statusCode).toBeGreaterThanOrEqual(400);
    expect((await second).statusCode).toBe(202);
    expect((await getQuota(t.ctx.db, a.id, 100)).consumed_quota_requests).toBe(1);
  });

  it("is refused at once when recorded predictions use the quota", async () => {
    const a = await t.account("external", 1);
    expect((await post(a.key)).statusCode).toBe(202);
    const t0 = performance.now();
    const res = await post(a.key);
    expect(res.statusCode).toBe(429);
    expect(res.headers["x-service-error-code"]).toBe("external_prediction_quota_exceeded");
    expect(performance.now() - t0).toBeLessThan(1000);
  });
});
