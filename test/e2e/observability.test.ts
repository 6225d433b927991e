/**
 * Observability end to end on the embedded parts (PGlite, in-memory limits, filesystem objects)
 * and a real run of the runner on the Kang 2018 split data: /metrics before and after, one
 * connected trace from the POST to the last callback, and log lines without secrets.
 *
 * The runner runs in this process (runJob behind a `runner.job` span continuing TRACEPARENT,
 * exactly what runner/src/main.ts does), reporting through the real signed HTTP callbacks to
 * the API listening on a loopback port. In-process is the dependable way to see every span in
 * one InMemorySpanExporter: a child process would have to export over OTLP to a receiver in
 * the test and flush before it exits, which adds a network hop and a timing race to every run.
 * The child-process path itself (TRACEPARENT in the child's environment) is covered by the
 * local executor's own test.
 */
import { mkdtemp, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { trace } from "@opentelemetry/api";
import { InMemorySpanExporter, type ReadableSpan } from "@opentelemetry/sdk-trace-base";
import type { FastifyInstance } from "fastify";
import pino from "pino";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { REDACT_PATHS, buildApp } from "../../api/src/app.ts";
import { buildMetricsApp } from "../../api/src/observability/metrics-server.ts";
import { loadConfig } from "../../api/src/config.ts";
import type { AppContext } from "../../api/src/context.ts";
import { closeContext, createContext } from "../../api/src/create-context.ts";
import { createAccount } from "../../api/src/db/accounts.ts";
import { registerModel } from "../../api/src/db/models.ts";
import type { Dispatcher } from "../../api/src/dispatch/dispatcher.ts";
import { apiLoggerOptions } from "../../api/src/observability/logging.ts";
import { sample } from "../../api/src/observability/testing.ts";
import { callbackPath } from "@causeway/contract";
import { deriveCallbackKey, type JobSpec } from "@causeway/contract";
import { HttpCallbackReporter } from "../../runner/src/jobs/reporter.ts";
import { runJob } from "../../runner/src/jobs/run-job.ts";
import { defaultModel } from "@causeway/runner/testing";
import {
  contextFromTraceparent,
  initTracing,
  inSpan,
  type TracingHandle,
} from "@causeway/contract/telemetry";
import { KANG_DIR } from "../shared-data.ts";

const SPLIT = join(KANG_DIR, "split_cd14mono");
const SECRET = "observability-e2e-secret-0123456789abcdef";

/** Runs each dispatched job in this process once released, the way runner/src/main.ts does. */
class InProcessRunner implements Dispatcher {
  readonly runs: Promise<void>[] = [];
  private release!: () => void;
  private readonly gate = new Promise<void>((resolve) => (this.release = resolve));
  private readonly target: () => { base: string; ctx: AppContext };

  constructor(target: () => { base: string; ctx: AppContext }) {
    this.target = target;
  }

  async dispatch(spec: JobSpec, carrier: { traceparent?: string }): Promise<void> {
    this.runs.push(
      this.gate.then(async () => {
        const { base, ctx } = this.target();
        const reporter = new HttpCallbackReporter({
          url: base + callbackPath(spec.kind, spec.job_id),
          keyHex: deriveCallbackKey(ctx.callbackSecret, spec.job_id),
          jobId: spec.job_id,
          kind: spec.kind,
          attempt: "in-process-1",
        });
        await inSpan(
          "runner.job",
          () =>
            runJob(spec, {
              store: ctx.store,
              reporter,
              attempt: "in-process-1",
              loadModel: () => defaultModel(),
            }),
          contextFromTraceparent(carrier.traceparent),
        );
      }),
    );
  }

  /** Lets the queued jobs run. */
  start(): void {
    this.release();
  }

  async mirrorStatus(): Promise<void> {}
  async close(): Promise<void> {}
}

const exporter = new InMemorySpanExporter();
const lines: string[] = [];
let tracing: TracingHandle;
let dir: string;
let ctx: AppContext;
let app: FastifyInstance;
let base: string;
let metricsApp: FastifyInstance | undefined;
let metricsBase: string;
let runner: InProcessRunner;

beforeAll(async () => {
  tracing = await initTracing("causeway-e2e", { exporter });
  dir = await mkdtemp(join(tmpdir(), "causeway-observability-"));
  const config = loadConfig({
    CAUSEWAY_DATA_DIR: dir,
    CAUSEWAY_CALLBACK_SECRET: SECRET,
    CAUSEWAY_EDGE_LIMIT: "100000",
    LOG_LEVEL: "trace",
  });
  // The API's own logger options (redaction, trace mixin), at trace level so the most is written.
  const logger = pino(apiLoggerOptions("trace", REDACT_PATHS, { isTTY: false }), {
    write: (line: string) => void lines.push(line),
  });
  runner = new InProcessRunner(() => ({ base, ctx }));
  ctx = await createContext(config, logger, { dispatcher: runner, ephemeralDatabase: true });
  await registerModel(ctx.db, "v1", { version: "v1" }, true);
  app = await buildApp(ctx, { loggerInstance: logger });
  base = await app.listen({ host: "127.0.0.1", port: 0 });
  // /metrics is served on its own port, as main.ts does.
  metricsApp = buildMetricsApp(ctx);
  metricsBase = await metricsApp.listen({ host: "127.0.0.1", port: 0 });
  // Loaded once up front so the job's own time is the run, not the bundle read.
  await defaultModel();
}, 300_000);

afterAll(async () => {
  await app?.close();
  await metricsApp?.close();
  if (ctx) await closeContext(ctx);
  await tracing?.shutdown();
  trace.disable();
  if (dir) await rm(dir, { recursive: true, force: true });
});

const scrape = async (): Promise<string> => {
  const res = await fetch(`${metricsBase}/metrics`);
  expect(res.status).toBe(200);
  return res.text();
};

async function splitForm(): Promise<FormData> {
  const form = new FormData();
  form.set("dataset_control", new Blob([await readFile(join(SPLIT, "control.h5ad"))]), "control.h5ad");
  form.set("dataset_pert", new Blob([await readFile(join(SPLIT, "perturbed.h5ad"))]), "perturbed.h5ad");
  form.set("degs", await readFile(join(SPLIT, "degs.json"), "utf8"));
  form.set("job_type", "target_validation");
  form.set("target", "STAT1|PROTEIN");
  return form;
}

const post = async (key: string): Promise<Response> =>
  fetch(`${base}/v1/predictions`, { method: "POST", headers: { "x-api-key": key }, body: await splitForm() });

const children = (spans: ReadableSpan[], parent: ReadableSpan): ReadableSpan[] =>
  spans.filter((s) => s.parentSpanContext?.spanId === parent.spanContext().spanId);

describe("observability of a real prediction in embedded mode", () => {
  let predictionId = "";
  let apiKey = "";
  let before = "";

  it("counts the refusals of the limits and the pending job", async () => {
    const { apiKey: key } = await createAccount(ctx.db, { name: "obs", tier: "external" });
    const { apiKey: noQuota } = await createAccount(ctx.db, { name: "obs-none", tier: "external", quota: 0 });
    apiKey = key;
    before = await scrape();
    const accepted = await post(key);
    expect(accepted.status).toBe(202);
    predictionId = ((await accepted.json()) as { prediction_id: string }).prediction_id;
    // The first job is held back, so a second one of the same account is over the in-flight limit.
    const inflight = await post(key);
    expect(inflight.status).toBe(429);
    expect(inflight.headers.get("x-service-error-code")).toBe("inflight_limit");
    const quota = await post(noQuota);
    expect(quota.headers.get("x-service-error-code")).toBe("external_prediction_quota_exceeded");

    const after = await scrape();
    const delta = (series: string) => sample(after, series) - sample(before, series);
    expect(delta('causeway_limit_rejections_total{limit="inflight_limit"}')).toBe(1);
    expect(delta('causeway_limit_rejections_total{limit="external_prediction_quota_exceeded"}')).toBe(1);
    expect(delta('causeway_limit_rejections_total{limit="rate_limited"}')).toBe(0);
    expect(
      delta('causeway_http_requests_total{method="POST",route="/v1/predictions",status_class="4xx"}'),
    ).toBe(2);
    expect(delta('causeway_jobs_submitted_total{job_type="target_validation"}')).toBe(1);
    expect(delta('causeway_quota_consumed_total{tier="external"}')).toBe(1);
    expect(delta("causeway_upload_bytes_total")).toBeGreaterThan(1_000_000);
    expect(sample(after, 'causeway_jobs_unfinished{job_type="target_validation",status="pending"}')).toBe(1);
  });

  it("counts the completed job, its stages, callbacks, queue wait and run time", async () => {
    runner.start();
    await Promise.all(runner.runs);
    const status = await fetch(`${base}/v1/predictions/${predictionId}`, {
      headers: { "x-api-key": apiKey },
    });
    expect(((await status.json()) as { status: string }).status).toBe("completed");

    const after = await scrape();
    const delta = (series: string) => sample(after, series) - sample(before, series);
    expect(delta('causeway_jobs_completed_total{job_type="target_validation"}')).toBe(1);
    expect(delta('causeway_job_queue_wait_seconds_count{job_type="target_validation"}')).toBe(1);
    expect(delta('causeway_job_run_seconds_count{job_type="target_validation",outcome="completed"}')).toBe(1);
    expect(delta('causeway_callbacks_total{kind="prediction",status="completed",applied="true"}')).toBe(1);
    expect(
      delta('causeway_callbacks_total{kind="prediction",status="processing",applied="true"}'),
    ).toBeGreaterThan(3);
    for (const step of ["inputs_downloaded", "de_completed", "scores_computed", "finish"]) {
      expect(
        delta(`causeway_runner_stage_duration_seconds_count{kind="prediction",step="${step}"}`),
        step,
      ).toBe(1);
      expect(delta(`causeway_runner_peak_rss_bytes_count{kind="prediction",step="${step}"}`), step).toBe(1);
    }
    expect(
      sample(after, 'causeway_runner_stage_duration_seconds_sum{kind="prediction",step="scores_computed"}'),
    ).toBeGreaterThan(0);
    expect(sample(after, 'causeway_jobs_unfinished{job_type="target_validation",status="pending"}')).toBe(0);
    expect(sample(after, 'causeway_jobs_unfinished{job_type="target_validation",status="processing"}')).toBe(
      0,
    );
    expect(delta('causeway_callbacks_rejected_total{reason="unauthorized"}')).toBe(0);
    expect(after).not.toContain(predictionId);
  });

  it("records one connected trace from the POST through the runner's stages to the last callback", async () => {
    const spans = exporter.getFinishedSpans();
    const job = spans.find((s) => s.name === "runner.job");
    expect(job, spans.map((s) => s.name).join(", ")).toBeDefined();
    const traceId = job!.spanContext().traceId;
    const inTrace = spans.filter((s) => s.spanContext().traceId === traceId);

    const post = inTrace.find((s) => s.name === "POST /v1/predictions")!;
    expect(post.attributes["http.response.status_code"]).toBe(202);
    expect(post.parentSpanContext).toBeUndefined();
    expect(post.attributes["causeway.prediction_id"]).toBe(predictionId);
    expect(children(inTrace, post).map((s) => s.name)).toEqual([
      "prediction.validate",
      "prediction.store",
      "prediction.enqueue",
    ]);
    const enqueue = inTrace.find((s) => s.name === "prediction.enqueue")!;
    expect(job!.parentSpanContext?.spanId).toBe(enqueue.spanContext().spanId);

    const underJob = children(inTrace, job!);
    const stages = underJob.filter((s) => s.name.startsWith("runner."));
    const callbacks = underJob.filter((s) => s.name === "POST /internal/v1/jobs/:kind/:job_id/callback");
    expect(stages.map((s) => s.name)).toContain("runner.scores_computed");
    expect(stages.at(-1)!.name).toBe("runner.finish");
    // One callback per stage report, each answered 200 and carrying the job's id.
    expect(callbacks).toHaveLength(stages.length);
    for (const cb of callbacks) {
      expect(cb.attributes["http.response.status_code"]).toBe(200);
      expect(cb.attributes["causeway.prediction_id"]).toBe(predictionId);
    }
    // The refused submissions are traces of their own.
    expect(
      spans.filter((s) => s.name === "POST /v1/predictions" && s.spanContext().traceId !== traceId),
    ).toHaveLength(2);
  });

  it("never logs the API key, the callback secret, a callback key or a signature; request lines carry their ids", async () => {
    const log = lines.join("\n");
    expect(lines.length).toBeGreaterThan(10); // one access line per request
    expect(log).not.toContain(apiKey);
    expect(log).not.toContain(SECRET);
    expect(log).not.toContain(deriveCallbackKey(SECRET, predictionId));
    expect(log).not.toMatch(/v1=[0-9a-f]{64}/);
    const parsed = lines.map((l) => JSON.parse(l) as Record<string, unknown>);
    const requestLines = parsed.filter((p) => p.reqId !== undefined);
    expect(requestLines.length).toBeGreaterThan(10);
    for (const p of requestLines) expect(p.trace_id, JSON.stringify(p)).toMatch(/^[0-9a-f]{32}$/);
    // The callbacks' and the status poll's lines name the prediction.
    const completed = requestLines.filter(
      (p) => p.msg === "request completed" && p.prediction_id === predictionId,
    );
    expect(completed.length).toBeGreaterThan(5);
  });
});
