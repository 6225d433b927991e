import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { buildTestApp, submit, type TestApp } from "../testing/helper.ts";
import { observeJobFinished } from "./job-metrics.ts";
import { registry } from "./metrics.ts";
import { sample } from "./testing.ts";

let t: TestApp;
beforeAll(async () => {
  t = await buildTestApp({ CAUSEWAY_INFLIGHT_LIMIT: "100" });
}, 120_000);
afterAll(async () => t?.close());

describe("observeJobFinished", () => {
  it("counts a finished prediction from its row: type, code, queue wait, run time, refund tier", async () => {
    const a = await t.account("external");
    const id = await submit(t, a.key);
    // Finished straight in SQL, so only this call records it.
    await t.ctx.db.query(
      `UPDATE predictions SET status = 'failed', error_code = 'out_of_memory', quota_refunded = true,
              started_at = created_at + interval '3 seconds', completed_at = created_at + interval '45 seconds'
        WHERE id = $1`,
      [id],
    );
    const before = await registry.metrics();
    await observeJobFinished(t.ctx.db, "prediction", id);
    const after = await registry.metrics();
    const delta = (series: string) => sample(after, series) - sample(before, series);
    expect(delta('causeway_jobs_failed_total{job_type="target_validation",code="out_of_memory"}')).toBe(1);
    expect(delta('causeway_job_queue_wait_seconds_bucket{le="5",job_type="target_validation"}')).toBe(1);
    expect(delta('causeway_job_queue_wait_seconds_bucket{le="1",job_type="target_validation"}')).toBe(0);
    expect(delta('causeway_job_run_seconds_sum{job_type="target_validation",outcome="failed"}')).toBeCloseTo(
      42,
    );
    expect(delta('causeway_quota_refunded_total{tier="external"}')).toBe(1);
  });

  it("ignores unfinished and unknown jobs, and never throws", async () => {
    const a = await t.account("internal");
    const id = await submit(t, a.key);
    const before = await registry.metrics();
    await observeJobFinished(t.ctx.db, "prediction", id);
    await observeJobFinished(t.ctx.db, "causal_analysis", "00000000-0000-4000-8000-000000000000");
    const errors: unknown[] = [];
    await observeJobFinished({ query: () => Promise.reject(new Error("db down")) }, "prediction", id, (err) =>
      errors.push(err),
    );
    expect(errors).toHaveLength(1);
    const after = await registry.metrics();
    expect(after.split("\n").filter((l) => l.startsWith("causeway_jobs_"))).toEqual(
      before.split("\n").filter((l) => l.startsWith("causeway_jobs_")),
    );
  });
});
