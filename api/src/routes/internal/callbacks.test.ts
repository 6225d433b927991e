import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { signCallback, type RunnerCallback } from "@causeway/contract";
import { getQuota } from "../../db/accounts.ts";
import { limitKeys } from "../../limits/limit-store.ts";
import { buildTestApp, submit, type TestApp } from "../../testing/helper.ts";

let t: TestApp;
beforeAll(async () => {
  t = await buildTestApp({
    CAUSEWAY_INFLIGHT_LIMIT: "1000",
    CAUSEWAY_RATE_LIMIT: "100000",
    CAUSEWAY_JOB_STALL_SECONDS: "600",
  });
}, 120_000);
afterAll(async () => t.close());

const status = async (key: string, id: string) =>
  (await t.app.inject({ url: `/v1/predictions/${id}`, headers: { "x-api-key": key } })).json();
const progress = (
  id: string,
  step: "inputs_downloaded" | "model_loaded" | "scores_computed",
  pct: number,
  seq: number,
): RunnerCallback => ({
  job_id: id,
  kind: "prediction",
  attempt: "local-1",
  seq,
  status: "processing",
  processing_step: step,
  progress_pct: pct,
});

describe("runner callbacks", () => {
  it("moves to processing, sets started_at once, and never lets progress go back", async () => {
    const a = await t.account("internal");
    const id = await submit(t, a.key);
    expect((await t.callback(progress(id, "inputs_downloaded", 5, 0))).statusCode).toBe(200);
    const s1 = await status(a.key, id);
    expect(s1).toMatchObject({ status: "processing", processing_step: "inputs_downloaded", progress_pct: 5 });
    expect(s1.started_at).toBe(t.clock.now.toISOString());
    t.clock.advance(5000);
    await t.callback(progress(id, "scores_computed", 70, 2));
    await t.callback(progress(id, "model_loaded", 45, 1)); // late, out of order
    const s2 = await status(a.key, id);
    expect(s2).toMatchObject({
      processing_step: "scores_computed",
      progress_pct: 70,
      started_at: s1.started_at,
    });
  });

  it("applies ten concurrent duplicates of the final callback exactly once; a finished job never changes", async () => {
    const a = await t.account("external", 5);
    const id = await submit(t, a.key);
    const failed: RunnerCallback = {
      job_id: id,
      kind: "prediction",
      attempt: "local-1",
      seq: 4,
      status: "failed",
      error_code: "target_not_in_interactome",
      error_message: "Target absent.",
      billable: false,
      result_files: [],
    };
    const results = await Promise.all(Array.from({ length: 10 }, () => t.callback(failed)));
    const applied = results.map((r) => JSON.parse(r.body).applied);
    expect(applied.filter(Boolean)).toHaveLength(1);
    // Non-billable: the quota unit comes back exactly once.
    expect((await getQuota(t.ctx.db, a.id, 100)).consumed_quota_requests).toBe(0);
    expect(await t.limits.reservations(limitKeys.inflight(a.id), t.clock.now.getTime())).toEqual([]);
    // Late progress and a late completion are absorbed.
    await t.callback(progress(id, "scores_computed", 70, 1));
    await t.callback({
      job_id: id,
      kind: "prediction",
      attempt: "local-2",
      seq: 0,
      status: "completed",
      result_files: [],
      result_sets: [""],
    });
    const s = await status(a.key, id);
    expect(s).toMatchObject({ status: "failed", error_code: "target_not_in_interactome" });
    expect(s).not.toHaveProperty("processing_step");
    const mirrored = t.dispatcher.mirrored.filter((m) => m.job.job_id === id);
    expect(mirrored.every((m) => m.status.status === "failed")).toBe(true);
  });

  it("keeps the quota unit of a billable failure and releases the in-flight slot", async () => {
    const a = await t.account("external", 5);
    const id = await submit(t, a.key);
    await t.callback({
      job_id: id,
      kind: "prediction",
      attempt: "local-1",
      seq: 1,
      status: "failed",
      error_code: "target_not_reachable",
      error_message: "No path.",
      billable: true,
      result_files: [],
    });
    expect((await getQuota(t.ctx.db, a.id, 100)).consumed_quota_requests).toBe(1);
    expect(await t.limits.reservations(limitKeys.inflight(a.id), t.clock.now.getTime())).toEqual([]);
  });

  it("rejects forged, stale, cross-job and wrong-kind callbacks with 401 and writes nothing", async () => {
    const a = await t.account("internal");
    const id = await submit(t, a.key);
    const other = await submit(t, a.key);
    const cb = progress(id, "model_loaded", 45, 0);
    const before = await status(a.key, id);
    expect((await t.callback(cb, { secret: "another-secret-another-secret-another-s" })).statusCode).toBe(
      401,
    );
    expect(
      (await t.callback(cb, { timestamp: Math.floor(t.clock.now.getTime() / 1000) - 301 })).statusCode,
    ).toBe(401);
    // Job A's payload signed with job B's key (posted to B's route) is refused.
    const res = await t.callback(
      { ...cb, job_id: other },
      { path: `/internal/v1/jobs/prediction/${id}/callback` },
    );
    expect(res.statusCode).toBe(401);
    expect(
      (await t.callback(cb, { path: `/internal/v1/jobs/causal_analysis/${id}/callback` })).statusCode,
    ).toBe(401);
    const raw = JSON.stringify(cb);
    const bad = await t.app.inject({
      method: "POST",
      url: `/internal/v1/jobs/prediction/${id}/callback`,
      headers: {
        "content-type": "application/json",
        "x-causeway-timestamp": String(Math.floor(t.clock.now.getTime() / 1000)),
        "x-causeway-signature": "v1=" + "0".repeat(64),
      },
      payload: raw,
    });
    expect(bad.statusCode).toBe(401);
    expect(await status(a.key, id)).toEqual(before);
  });

  it("validates a signed body with RunnerCallback (422) and answers 404 for an unknown job", async () => {
    const a = await t.account("internal");
    const id = await submit(t, a.key);
    const raw = JSON.stringify({
      job_id: id,
      kind: "prediction",
      attempt: "x",
      seq: 0,
      status: "processing",
      processing_step: "bogus",
      progress_pct: 5,
    });
    const ts = Math.floor(t.clock.now.getTime() / 1000);
    const { deriveCallbackKey } = await import("@causeway/contract");
    const res = await t.app.inject({
      method: "POST",
      url: `/internal/v1/jobs/prediction/${id}/callback`,
      headers: {
        "content-type": "application/json",
        "x-causeway-timestamp": String(ts),
        "x-causeway-signature": signCallback(deriveCallbackKey(t.ctx.callbackSecret, id), ts, raw),
      },
      payload: raw,
    });
    expect(res.statusCode).toBe(422);
    expect(res.json().detail[0].loc).toEqual(["body", "processing_step"]);
    const unknown = "11111111-1111-4111-8111-111111111111";
    expect((await t.callback(progress(unknown, "model_loaded", 45, 0))).statusCode).toBe(404);
  });

  it("is not part of the public OpenAPI document", async () => {
    const doc = (await t.app.inject({ url: "/openapi.json" })).json();
    expect(Object.keys(doc.paths).some((p) => p.startsWith("/internal"))).toBe(false);
  });
});

describe("stuck-job sweeper", () => {
  it("fails a job silent past the deadline with job_stalled (non-billable), and leaves a reporting job alone", async () => {
    const a = await t.account("external", 10);
    const b = await t.account("external", 10);
    const silent = await submit(t, a.key);
    const busy = await submit(t, b.key);
    t.clock.advance(500_000);
    await t.callback(progress(busy, "model_loaded", 45, 0));
    t.clock.advance(200_000); // silent: 700 s without a report; busy: 200 s
    expect(await t.ctx.jobs.sweep()).toBeGreaterThanOrEqual(1); // earlier tests left pending jobs too
    const s = await status(a.key, silent);
    expect(s).toMatchObject({ status: "failed", error_code: "job_stalled" });
    expect(s.error_message).toMatch(/stopped reporting/);
    expect((await getQuota(t.ctx.db, a.id, 100)).consumed_quota_requests).toBe(0);
    expect(await t.limits.reservations(limitKeys.inflight(a.id), t.clock.now.getTime())).toEqual([]);
    expect((await status(b.key, busy)).status).toBe("processing");
    expect(await t.ctx.jobs.sweep()).toBe(0);
  });
});
