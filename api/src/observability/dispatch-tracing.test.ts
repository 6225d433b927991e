/** The cluster dispatcher's span: the custom resource's annotation continues the trace from it. */
import { trace } from "@opentelemetry/api";
import { InMemorySpanExporter } from "@opentelemetry/sdk-trace-base";
import { pino } from "pino";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { initTracing, type TracingHandle } from "@causeway/contract/telemetry";
import { aPrediction } from "../../../test/builders/prediction.ts";
import { KubernetesDispatcher } from "../dispatch/kubernetes.ts";

const exporter = new InMemorySpanExporter();
let tracing: TracingHandle;
beforeAll(async () => {
  tracing = await initTracing("causeway-api-test", { exporter });
});
afterAll(async () => {
  await tracing.shutdown();
  trace.disable();
});

describe("cluster dispatch tracing", () => {
  it("creates the resource in a span of the submission's trace and annotates it with that span", async () => {
    const created: { metadata: { annotations?: Record<string, string> } }[] = [];
    const dispatcher = new KubernetesDispatcher({
      client: {
        create: async (_ns, _plural, body) => void created.push(body as (typeof created)[number]),
        applyStatus: async () => {},
      },
      namespace: "ns",
      log: pino({ level: "silent" }),
    });
    const enqueue = "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01";
    await dispatcher.dispatch(aPrediction().build().spec, { traceparent: enqueue });
    const span = exporter.getFinishedSpans().find((s) => s.name === "dispatch.create_resource")!;
    expect(span.spanContext().traceId).toBe("4bf92f3577b34da6a3ce929d0e0e4736");
    expect(span.parentSpanContext?.spanId).toBe("00f067aa0ba902b7");
    expect(created[0]!.metadata.annotations).toEqual({
      "causeway.io/traceparent": `00-4bf92f3577b34da6a3ce929d0e0e4736-${span.spanContext().spanId}-01`,
    });
  });
});
