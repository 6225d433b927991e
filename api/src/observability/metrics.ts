/**
 * The API's Prometheus metrics: one process-wide registry (a process is one scrape target),
 * the `causeway_` prefix, unit suffixes, histograms for durations and sizes, and only bounded
 * labels — route templates, methods, status classes, job types, failure codes, steps, tiers.
 * Never a prediction id, account id or API key (engineering.md A.5 #12, argo#13833).
 *
 * The helpers below are what the rest of the API calls; they never throw, because a metric
 * must not break a request or a callback.
 */
import { collectDefaultMetrics, Counter, Histogram, Registry } from "prom-client";
import type { FailureCode, RunnerCallback } from "@causeway/contract";

/** The registry behind GET /metrics (plus the per-app database gauges, see db-gauges.ts). */
export const registry = new Registry();
collectDefaultMetrics({ register: registry, prefix: "causeway_api_" });

/** Job types as metric label values: the prediction job types plus causal analyses. */
export type JobTypeLabel = "target_id" | "target_validation" | "causal_analysis";

/** The limits of service-spec §8 that refuse a request, named by their X-Service-Error-Code. */
export const LIMIT_CODES = ["rate_limited", "inflight_limit", "external_prediction_quota_exceeded"] as const;
export type LimitLabel = (typeof LIMIT_CODES)[number] | "edge";

const exp = (start: number, factor: number, count: number): number[] =>
  Array.from({ length: count }, (_, i) => start * factor ** i);

// Uploads and slow graph renders run for minutes, so the HTTP buckets reach 10 minutes.
const HTTP_BUCKETS = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 120, 300, 600];
const QUEUE_BUCKETS = [0.5, 1, 5, 15, 30, 60, 120, 300, 600, 1800, 3600, 7200];
const RUN_BUCKETS = [1, 5, 15, 30, 60, 120, 300, 600, 1200, 1800, 3600, 7200];
const STAGE_BUCKETS = [0.05, 0.1, 0.5, 1, 2.5, 5, 10, 30, 60, 120, 300, 600, 1800];
const MODEL_BUILD_BUCKETS = [1, 5, 10, 30, 60, 120, 300, 600, 1200, 1800, 3600];
/** 64 MiB … 16 GiB, doubling. */
const RSS_BUCKETS = exp(64 * 1024 ** 2, 2, 9);
/** 1 KiB … 4 GiB, ×4. */
const UPLOAD_BUCKETS = exp(1024, 4, 12);

export const httpRequestDuration = new Histogram({
  name: "causeway_http_request_duration_seconds",
  help: "HTTP request duration by route template, method and status class",
  labelNames: ["method", "route", "status_class"],
  buckets: HTTP_BUCKETS,
  registers: [registry],
});

export const httpRequests = new Counter({
  name: "causeway_http_requests_total",
  help: "HTTP requests by route template, method and status class",
  labelNames: ["method", "route", "status_class"],
  registers: [registry],
});

export const limitRejections = new Counter({
  name: "causeway_limit_rejections_total",
  help: "Requests refused by a limit: rate_limited, inflight_limit, external_prediction_quota_exceeded (429) or edge (403)",
  labelNames: ["limit"],
  registers: [registry],
});

export const uploadBytes = new Counter({
  name: "causeway_upload_bytes_total",
  help: "Bytes of uploaded dataset files received",
  registers: [registry],
});

export const uploadSize = new Histogram({
  name: "causeway_upload_size_bytes",
  help: "Total size of the dataset files of one submission",
  buckets: UPLOAD_BUCKETS,
  registers: [registry],
});

export const jobsSubmitted = new Counter({
  name: "causeway_jobs_submitted_total",
  help: "Jobs recorded and enqueued, by job type",
  labelNames: ["job_type"],
  registers: [registry],
});

export const jobsCompleted = new Counter({
  name: "causeway_jobs_completed_total",
  help: "Jobs that completed, by job type",
  labelNames: ["job_type"],
  registers: [registry],
});

export const jobsFailed = new Counter({
  name: "causeway_jobs_failed_total",
  help: "Jobs that failed, by job type and failure code (reported by the runner or set by the API: job_stalled, internal_error)",
  labelNames: ["job_type", "code"],
  registers: [registry],
});

export const jobQueueWait = new Histogram({
  name: "causeway_job_queue_wait_seconds",
  help: "Time from creation to the first report of the runner (observed when the job finishes)",
  labelNames: ["job_type"],
  buckets: QUEUE_BUCKETS,
  registers: [registry],
});

export const jobRunTime = new Histogram({
  name: "causeway_job_run_seconds",
  help: "Time from the first report of the runner to the end of the job",
  labelNames: ["job_type", "outcome"],
  buckets: RUN_BUCKETS,
  registers: [registry],
});

export const callbacks = new Counter({
  name: "causeway_callbacks_total",
  help: "Verified runner callbacks by kind, reported status and whether they changed the job",
  labelNames: ["kind", "status", "applied"],
  registers: [registry],
});

export const callbacksRejected = new Counter({
  name: "causeway_callbacks_rejected_total",
  help: "Runner callbacks refused: unauthorized (signature, clock skew, wrong job), invalid (body), unknown_job",
  labelNames: ["reason"],
  registers: [registry],
});

export const quotaConsumed = new Counter({
  name: "causeway_quota_consumed_total",
  help: "Lifetime quota units taken by accepted prediction submissions, by account tier",
  labelNames: ["tier"],
  registers: [registry],
});

export const quotaRefunded = new Counter({
  name: "causeway_quota_refunded_total",
  help: "Quota units given back by non-billable prediction failures, by account tier",
  labelNames: ["tier"],
  registers: [registry],
});

export const runnerStageDuration = new Histogram({
  name: "causeway_runner_stage_duration_seconds",
  help: "Runner time spent up to each reported step (stage_seconds of the callback); step=finish is the last stretch",
  labelNames: ["kind", "step"],
  buckets: STAGE_BUCKETS,
  registers: [registry],
});

export const runnerPeakRss = new Histogram({
  name: "causeway_runner_peak_rss_bytes",
  help: "Peak resident memory of the runner process reached by each reported step (peak_rss_bytes of the callback)",
  labelNames: ["kind", "step"],
  buckets: RSS_BUCKETS,
  registers: [registry],
});

export const modelBuildDuration = new Histogram({
  name: "causeway_model_build_duration_seconds",
  help: "Time to build and store a model bundle imported by this process",
  buckets: MODEL_BUILD_BUCKETS,
  registers: [registry],
});

export const modelBuildSize = new Histogram({
  name: "causeway_model_build_size_bytes",
  help: "Size of the model bundles imported by this process",
  buckets: exp(1024 ** 2, 4, 10),
  registers: [registry],
});

/** "2xx" for 204 and so on. */
export const statusClass = (status: number): string => `${Math.floor(status / 100)}xx`;

/** Counts a request refused by a limit. */
export function recordLimitRejection(limit: LimitLabel): void {
  limitRejections.inc({ limit });
}

/** Counts the dataset bytes of one submission. */
export function recordUpload(files: Iterable<{ bytes: number } | undefined>): void {
  let total = 0;
  for (const f of files) total += f?.bytes ?? 0;
  uploadBytes.inc(total);
  uploadSize.observe(total);
}

/** A job was recorded and handed to the dispatcher; predictions also took a quota unit. */
export function recordSubmission(jobType: JobTypeLabel, tier?: "external" | "internal"): void {
  jobsSubmitted.inc({ job_type: jobType });
  if (tier) quotaConsumed.inc({ tier });
}

/** A verified callback was applied (or found a finished job and changed nothing). */
export function recordCallback(cb: RunnerCallback, applied: boolean): void {
  callbacks.inc({ kind: cb.kind, status: cb.status, applied: String(applied) });
  // Stage figures of a duplicate delivery were counted the first time.
  if (!applied) return;
  const step = cb.status === "processing" ? cb.processing_step : "finish";
  if (cb.stage_seconds !== undefined) runnerStageDuration.observe({ kind: cb.kind, step }, cb.stage_seconds);
  if (cb.peak_rss_bytes !== undefined) runnerPeakRss.observe({ kind: cb.kind, step }, cb.peak_rss_bytes);
}

/** Why a callback was refused, from the status it was answered with. */
export function recordCallbackRejected(reason: "unauthorized" | "invalid" | "unknown_job"): void {
  callbacksRejected.inc({ reason });
}

/** The timestamps and outcome of a job that just reached its terminal state. */
export interface FinishedJob {
  jobType: JobTypeLabel;
  status: "completed" | "failed";
  errorCode: FailureCode | string | null;
  createdAt: Date;
  startedAt: Date | null;
  completedAt: Date | null;
  /** Tier of the account whose quota unit was given back, when the failure refunded one. */
  refundedTier: "external" | "internal" | null;
}

/** Counts a finished job and observes its queue wait and run time. */
export function recordJobFinished(job: FinishedJob): void {
  const labels = { job_type: job.jobType };
  if (job.status === "completed") jobsCompleted.inc(labels);
  else jobsFailed.inc({ ...labels, code: job.errorCode ?? "unknown" });
  if (job.startedAt) {
    jobQueueWait.observe(labels, seconds(job.createdAt, job.startedAt));
    if (job.completedAt)
      jobRunTime.observe({ ...labels, outcome: job.status }, seconds(job.startedAt, job.completedAt));
  }
  if (job.refundedTier) quotaRefunded.inc({ tier: job.refundedTier });
}

/** A model bundle built by this process (start-up import or an import it was asked for). */
export function recordModelBuild(durationSeconds: number, bundleBytes: number | null): void {
  modelBuildDuration.observe(durationSeconds);
  if (bundleBytes !== null) modelBuildSize.observe(bundleBytes);
}

/** Sum of the file sizes a model manifest lists, or null when it lists none. */
export function manifestBytes(manifest: unknown): number | null {
  if (typeof manifest !== "object" || manifest === null || !("files" in manifest)) return null;
  const files = (manifest as { files: unknown }).files;
  if (typeof files !== "object" || files === null) return null;
  let total = 0;
  for (const f of Object.values(files)) {
    const bytes = typeof f === "object" && f !== null ? (f as { bytes?: unknown }).bytes : undefined;
    if (typeof bytes === "number") total += bytes;
  }
  return total;
}

const seconds = (from: Date, to: Date): number => Math.max(0, (to.getTime() - from.getTime()) / 1000);
