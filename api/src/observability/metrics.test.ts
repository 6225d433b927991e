import { describe, expect, it } from "vitest";
import {
  callbacks,
  jobQueueWait,
  jobRunTime,
  jobsCompleted,
  jobsFailed,
  manifestBytes,
  quotaRefunded,
  recordCallback,
  recordJobFinished,
  registry,
  runnerPeakRss,
  runnerStageDuration,
  statusClass,
} from "./metrics.ts";

/** Current value of a counter series (0 when absent). */
async function value(
  metric: { get(): Promise<{ values: { labels: object; value: number }[] }> },
  labels: object,
) {
  const { values } = await metric.get();
  const match = values.find((v) => JSON.stringify(v.labels) === JSON.stringify(labels));
  return match?.value ?? 0;
}

/** Observation count of a histogram series. */
async function count(
  metric: { get(): Promise<{ values: { labels: object; value: number; metricName?: string }[] }> },
  labels: object,
) {
  const { values } = await metric.get();
  const match = values.find(
    (v) => v.metricName?.endsWith("_count") && JSON.stringify(v.labels) === JSON.stringify(labels),
  );
  return match?.value ?? 0;
}

describe("API metrics", () => {
  it("classes statuses", () => {
    expect([200, 202, 404, 429, 503].map(statusClass)).toEqual(["2xx", "2xx", "4xx", "4xx", "5xx"]);
  });

  it("takes stage figures from applied callbacks only, named after their step", async () => {
    const base = {
      job_id: "00000000-0000-4000-8000-000000000001",
      kind: "prediction" as const,
      attempt: "a",
      seq: 1,
    };
    const before = await count(runnerStageDuration, { kind: "prediction", step: "de_completed" });
    const cb = {
      ...base,
      status: "processing" as const,
      processing_step: "de_completed" as const,
      progress_pct: 35,
      stage_seconds: 2.5,
      peak_rss_bytes: 300 * 1024 ** 2,
    };
    recordCallback(cb, true);
    recordCallback(cb, false);
    expect(await count(runnerStageDuration, { kind: "prediction", step: "de_completed" })).toBe(before + 1);
    expect(await count(runnerPeakRss, { kind: "prediction", step: "de_completed" })).toBeGreaterThan(0);
    expect(
      await value(callbacks, { kind: "prediction", status: "processing", applied: "false" }),
    ).toBeGreaterThan(0);
    recordCallback(
      { ...base, status: "completed", result_files: [], result_sets: [""], stage_seconds: 1 },
      true,
    );
    expect(await count(runnerStageDuration, { kind: "prediction", step: "finish" })).toBeGreaterThan(0);
  });

  it("counts a finished job once with its queue wait, run time and refund", async () => {
    const t0 = new Date("2026-01-01T00:00:00Z");
    const before = {
      failed: await value(jobsFailed, { job_type: "target_validation", code: "job_stalled" }),
      completed: await value(jobsCompleted, { job_type: "target_id" }),
      refunds: await value(quotaRefunded, { tier: "external" }),
      waits: await count(jobQueueWait, { job_type: "target_id" }),
      runs: await count(jobRunTime, { job_type: "target_id", outcome: "completed" }),
    };
    recordJobFinished({
      jobType: "target_validation",
      status: "failed",
      errorCode: "job_stalled",
      createdAt: t0,
      startedAt: null,
      completedAt: new Date(t0.getTime() + 60_000),
      refundedTier: "external",
    });
    recordJobFinished({
      jobType: "target_id",
      status: "completed",
      errorCode: null,
      createdAt: t0,
      startedAt: new Date(t0.getTime() + 4000),
      completedAt: new Date(t0.getTime() + 64_000),
      refundedTier: null,
    });
    expect(await value(jobsFailed, { job_type: "target_validation", code: "job_stalled" })).toBe(
      before.failed + 1,
    );
    expect(await value(jobsCompleted, { job_type: "target_id" })).toBe(before.completed + 1);
    expect(await value(quotaRefunded, { tier: "external" })).toBe(before.refunds + 1);
    expect(await count(jobQueueWait, { job_type: "target_id" })).toBe(before.waits + 1);
    expect(await count(jobRunTime, { job_type: "target_id", outcome: "completed" })).toBe(before.runs + 1);
    const text = await registry.getSingleMetricAsString("causeway_job_run_seconds");
    // 60 s of run time lands in the le=60 bucket.
    expect(text).toMatch(
      /causeway_job_run_seconds_bucket\{le="60",job_type="target_id",outcome="completed"\} [1-9]/,
    );
  });

  it("sizes a model bundle from its manifest", () => {
    expect(manifestBytes({ files: { a: { sha256: "x", bytes: 10 }, b: { sha256: "y", bytes: 32 } } })).toBe(
      42,
    );
    expect(manifestBytes({})).toBeNull();
    expect(manifestBytes(null)).toBeNull();
  });
  it("uses the causeway_ prefix, unit suffixes and no id labels", async () => {
    const metrics = await registry.getMetricsAsJSON();
    for (const m of metrics) {
      expect(m.name).toMatch(/^causeway_/);
      if (String(m.type) === "counter") expect(m.name).toMatch(/_total$/);
      if (String(m.type) === "histogram") expect(m.name).toMatch(/_(seconds|bytes)$/);
    }
    const labels = new Set(
      metrics.flatMap((m) => m.values.flatMap((v) => Object.keys(v.labels as Record<string, unknown>))),
    );
    for (const forbidden of ["prediction_id", "account_id", "job_id", "api_key", "key"])
      expect(labels.has(forbidden)).toBe(false);
  });
});
