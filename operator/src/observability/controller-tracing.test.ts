/** The operator's place in a prediction's trace, through the real Controller and an in-memory apiserver. */
import { trace } from "@opentelemetry/api";
import { InMemorySpanExporter } from "@opentelemetry/sdk-trace-base";
import type { V1Job } from "@kubernetes/client-node";
import { pino } from "pino";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { initTracing, type TracingHandle } from "@causeway/contract/telemetry";
import {
  aPrediction,
  JOB_ID,
  T0,
  testConfig,
  unreachableKubeConfig,
} from "../../../test/builders/prediction.ts";
import { FakeClock } from "../runtime/clock.ts";
import { Controller, queueKey } from "../runtime/controller.ts";
import { EventRecorder } from "../runtime/events.ts";
import type { KubeGateway } from "../runtime/kube.ts";
import { OperatorMetrics } from "../runtime/metrics.ts";

const API_TRACE = "4bf92f3577b34da6a3ce929d0e0e4736";
const API_SPAN = "00f067aa0ba902b7";

/** Just enough apiserver for one pass: the Job and the Secret it creates (the resource comes from the cache). */
function gateway(): KubeGateway & { jobs: V1Job[] } {
  const jobs: V1Job[] = [];
  return {
    jobs,
    getJob: async () => null,
    createJob: async (job) => (jobs.push(job), job),
    deleteJob: async () => {},
    deleteResource: async () => "deleted",
    createSecret: async () => "created",
    applyStatus: async () => ({ resourceVersion: undefined }),
    createEvent: async () => {},
    patchEvent: async () => {},
  };
}

const exporter = new InMemorySpanExporter();
let tracing: TracingHandle;
beforeAll(async () => {
  tracing = await initTracing("causeway-operator-test", { exporter });
});
afterAll(async () => {
  await tracing.shutdown();
  trace.disable();
});

describe("operator tracing", () => {
  it("reconciles inside the API's trace and hands the runner the span that created its Job", async () => {
    const resource = aPrediction()
      .annotate("causeway.io/traceparent", `00-${API_TRACE}-${API_SPAN}-01`)
      .build();
    const gw = gateway();
    const kc = unreachableKubeConfig();
    const clock = new FakeClock(T0.getTime());
    const log = pino({ level: "silent" });
    const controller = new Controller({
      kc,
      namespace: "causeway",
      gateway: gw,
      config: testConfig(),
      clock,
      log,
      metrics: new OperatorMetrics(false),
      recorder: new EventRecorder({ gateway: gw, clock, log, instance: "op-0" }),
      concurrency: 1,
      relistIntervalMs: 600_000,
      staleAfterMs: 120_000,
      cache: { resource: () => structuredClone(resource), job: () => undefined },
    });
    await controller.reconcile(queueKey("prediction", "causeway", JOB_ID));

    const spans = exporter.getFinishedSpans();
    const reconcile = spans.find((s) => s.name === "operator.reconcile")!;
    const create = spans.find((s) => s.name === "operator.create_job")!;
    expect(reconcile.spanContext().traceId).toBe(API_TRACE);
    expect(reconcile.parentSpanContext?.spanId).toBe(API_SPAN);
    expect(create.parentSpanContext?.spanId).toBe(reconcile.spanContext().spanId);
    const env = gw.jobs[0]!.spec!.template.spec!.containers[0]!.env!;
    expect(env.filter((e) => e.name === "TRACEPARENT")).toEqual([
      { name: "TRACEPARENT", value: `00-${API_TRACE}-${create.spanContext().spanId}-01` },
    ]);
  });
});
