import { trace } from "@opentelemetry/api";
import type { V1Job } from "@kubernetes/client-node";
import { describe, expect, it } from "vitest";
import { resourceTraceContext, withTraceEnv } from "./tracing.ts";

const job = (): V1Job => ({
  metadata: { name: "p-1" },
  spec: {
    template: {
      spec: {
        restartPolicy: "Never",
        containers: [
          {
            name: "runner",
            env: [
              { name: "A", value: "1" },
              { name: "TRACEPARENT", value: "00-aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa-bbbbbbbbbbbbbbbb-01" },
            ],
          },
        ],
      },
    },
  },
});

describe("operator trace propagation", () => {
  it("continues the trace of the resource's annotation", () => {
    const ctx = resourceTraceContext({
      metadata: {
        annotations: { "causeway.io/traceparent": "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01" },
      },
    });
    expect(trace.getSpanContext(ctx)).toMatchObject({
      traceId: "4bf92f3577b34da6a3ce929d0e0e4736",
      spanId: "00f067aa0ba902b7",
      isRemote: true,
    });
    expect(trace.getSpanContext(resourceTraceContext({ metadata: {} }))).toBeUndefined();
  });

  it("points the Job's TRACEPARENT at the operator's span, without touching the original", () => {
    const original = job();
    const next = withTraceEnv(original, {
      traceparent: "00-4bf92f3577b34da6a3ce929d0e0e4736-1111111111111111-01",
      tracestate: "k=v",
    });
    expect(next.spec!.template.spec!.containers[0]!.env).toEqual([
      { name: "A", value: "1" },
      { name: "TRACEPARENT", value: "00-4bf92f3577b34da6a3ce929d0e0e4736-1111111111111111-01" },
      { name: "TRACESTATE", value: "k=v" },
    ]);
    expect(original.spec!.template.spec!.containers[0]!.env![1]!.value).toContain("aaaa");
    expect(withTraceEnv(original, {})).toBe(original);
  });
});
