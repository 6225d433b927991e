/**
 * Start-up recovery in embedded mode (JobService.recover/resume): jobs the previous process left
 * queued or running are dispatched again when their stored inputs are intact, with a fresh
 * attempt number and the quota untouched; the others are failed and give their unit back.
 * The dispatcher is the test app's recording one: what is decided here is what gets dispatched.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { PredictionJobSpec, jobInputKeys } from "@causeway/contract";
import { getQuota } from "../../db/accounts.ts";
import { limitKeys } from "../../limits/limit-store.ts";
import { buildTestApp, splitForm, type TestApp } from "../../testing/helper.ts";
import { RESTARTED_MESSAGE } from "./jobs.ts";

let t: TestApp;
beforeAll(async () => {
  t = await buildTestApp({ CAUSEWAY_INFLIGHT_LIMIT: "5" });
}, 120_000);
afterAll(async () => t.close());

async function submit(key: string): Promise<PredictionJobSpec> {
  const form = splitForm();
  const res = await t.app.inject({
    method: "POST",
    url: "/v1/predictions",
    headers: { ...form.headers, "x-api-key": key },
    payload: form.payload,
  });
  expect(res.statusCode, res.body).toBe(202);
  // Submissions a second apart: recovery dispatches in submission order.
  t.clock.advance(1000);
  return PredictionJobSpec.parse(t.dispatcher.specs.at(-1));
}

async function row(id: string) {
  const { rows } = await t.ctx.db.query<{
    status: string;
    error_code: string | null;
    error_detail: string | null;
  }>("SELECT status, error_code, error_detail FROM predictions WHERE id = $1", [id]);
  return rows[0]!;
}

describe("recovery of unfinished jobs at start", () => {
  it("dispatches intact jobs again after the last attempt and fails those whose inputs are gone", async () => {
    const a = await t.account("internal");
    const running = await submit(a.key);
    const queued = await submit(a.key);
    const lost = await submit(a.key);
    // `running` had reported progress from its first attempt before the process died.
    await t.callback({
      kind: "prediction",
      job_id: running.job_id,
      status: "processing",
      processing_step: "de_completed",
      progress_pct: 35,
      attempt: "local-1",
      seq: 1,
    });
    await t.store.delete(jobInputKeys(lost)[1]!);
    const before = await getQuota(t.ctx.db, a.id, 100);
    t.dispatcher.specs.length = 0;
    t.dispatcher.contexts.length = 0;

    const resumable = await t.ctx.jobs.recover(true);
    expect(resumable.map((j) => j.spec.job_id)).toEqual([running.job_id, queued.job_id]);
    await t.ctx.jobs.resume(resumable);

    expect(t.dispatcher.specs).toEqual([running, queued]);
    expect(t.dispatcher.contexts.map((c) => c.previousAttempt)).toEqual(["local-1", null]);
    expect((await row(running.job_id)).status).toBe("processing");
    expect((await row(queued.job_id)).status).toBe("pending");
    const failed = await row(lost.job_id);
    expect(failed).toMatchObject({ status: "failed", error_code: "job_stalled" });
    expect(failed.error_detail).toContain("1 stored input object(s) missing");
    const { rows } = await t.ctx.db.query<{ error_message: string }>(
      "SELECT error_message FROM predictions WHERE id = $1",
      [lost.job_id],
    );
    expect(rows[0]!.error_message).toBe(RESTARTED_MESSAGE);

    // The resumed jobs keep the unit they paid once; the failed one gives its unit back.
    const after = await getQuota(t.ctx.db, a.id, 100);
    expect(after.consumed_quota_requests).toBe(before.consumed_quota_requests - 1);
    // Both resumed jobs hold their in-flight reservations again; the failed one holds none.
    const held = await t.limits.reservations(limitKeys.inflight(a.id), t.clock.now.getTime());
    expect(held.sort()).toEqual([running.job_id, queued.job_id].sort());
  });

  it("in cluster mode leaves the jobs to the operator and only restores reservations", async () => {
    const a = await t.account("internal");
    const spec = await submit(a.key);
    t.dispatcher.specs.length = 0;
    expect(await t.ctx.jobs.recover(false)).toEqual([]);
    expect(t.dispatcher.specs).toEqual([]);
    expect((await row(spec.job_id)).status).toBe("pending");
    const held = await t.limits.reservations(limitKeys.inflight(a.id), t.clock.now.getTime());
    expect(held).toEqual([spec.job_id]);
  });
});
