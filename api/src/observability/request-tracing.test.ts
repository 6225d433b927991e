import { trace } from "@opentelemetry/api";
import { InMemorySpanExporter, type ReadableSpan } from "@opentelemetry/sdk-trace-base";
import Fastify, { type FastifyBaseLogger, type FastifyInstance } from "fastify";
import pino from "pino";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { initTracing, inSpan, type TracingHandle } from "@causeway/contract/telemetry";
import { REDACT_PATHS } from "../app.ts";
import { apiLoggerOptions } from "./logging.ts";
import { bindJob, jobTraceContext, registerRequestTracing, startPhase } from "./request-tracing.ts";

const exporter = new InMemorySpanExporter();
const lines: string[] = [];
let tracing: TracingHandle;
let app: FastifyInstance;

const INCOMING_TRACE = "4bf92f3577b34da6a3ce929d0e0e4736";
const INCOMING = `00-${INCOMING_TRACE}-00f067aa0ba902b7-01`;

beforeAll(async () => {
  tracing = await initTracing("causeway-api-test", { exporter });
  const logger: FastifyBaseLogger = pino(apiLoggerOptions("info", REDACT_PATHS, { isTTY: false }), {
    write: (line: string) => void lines.push(line),
  });
  app = Fastify({ loggerInstance: logger });
  registerRequestTracing(app);
  app.post("/v1/predictions", async (request) => {
    startPhase(request, "prediction.validate");
    bindJob(request, "prediction", "11111111-1111-4111-8111-111111111111");
    startPhase(request, "prediction.enqueue");
    request.log.info("enqueueing");
    // Work started by the handler joins the request's trace (the active span).
    await inSpan("dispatch.work", async () => {});
    return jobTraceContext(request);
  });
  app.get("/v1/predictions/:prediction_id", async (request) => {
    request.log.info("reading");
    return {};
  });
  await app.ready();
});

afterAll(async () => {
  await app?.close();
  await tracing?.shutdown();
  trace.disable();
});

const byName = (name: string): ReadableSpan => {
  const span = exporter.getFinishedSpans().find((s) => s.name === name);
  if (!span)
    throw new Error(
      `no span ${name}: ${exporter
        .getFinishedSpans()
        .map((s) => s.name)
        .join(", ")}`,
    );
  return span;
};

describe("request tracing", () => {
  it("continues the caller's trace, nests the phases and hands the enqueue phase to the job", async () => {
    exporter.reset();
    const res = await app.inject({
      method: "POST",
      url: "/v1/predictions",
      headers: { traceparent: INCOMING },
    });
    expect(res.statusCode).toBe(200);
    const server = byName("POST /v1/predictions");
    expect(server.spanContext().traceId).toBe(INCOMING_TRACE);
    expect(server.parentSpanContext?.spanId).toBe("00f067aa0ba902b7");
    expect(server.attributes["http.route"]).toBe("/v1/predictions");
    expect(server.attributes["http.response.status_code"]).toBe(200);
    expect(server.attributes["causeway.prediction_id"]).toBe("11111111-1111-4111-8111-111111111111");
    const validate = byName("prediction.validate");
    const enqueue = byName("prediction.enqueue");
    const work = byName("dispatch.work");
    for (const child of [validate, enqueue, work])
      expect(child.parentSpanContext?.spanId).toBe(server.spanContext().spanId);
    // Phases run in order. Span clocks mix millisecond wall time and a monotonic offset, so two
    // adjacent timestamps can disagree by under a millisecond: compare in milliseconds with that slack.
    const ms = (t: [number, number]): number => t[0] * 1e3 + t[1] / 1e6;
    expect(ms(validate.endTime)).toBeLessThanOrEqual(ms(enqueue.startTime) + 1);
    const carrier = res.json<{ traceparent: string }>();
    expect(carrier.traceparent).toBe(`00-${INCOMING_TRACE}-${enqueue.spanContext().spanId}-01`);
  });

  it("starts a new trace without a traceparent and never names a concrete path", async () => {
    exporter.reset();
    await app.inject({ method: "GET", url: "/v1/predictions/22222222-2222-4222-8222-222222222222" });
    const server = byName("GET /v1/predictions/:prediction_id");
    expect(server.parentSpanContext).toBeUndefined();
    expect(JSON.stringify(server.attributes)).not.toContain("/v1/predictions/2222");
  });

  it("puts request id, trace id and the prediction id on every line of a request, once", async () => {
    lines.length = 0;
    await app.inject({
      method: "GET",
      url: "/v1/predictions/22222222-2222-4222-8222-222222222222",
      headers: { traceparent: INCOMING },
    });
    const parsed = lines.map((l) => JSON.parse(l) as Record<string, unknown>);
    expect(parsed.map((p) => p.msg)).toEqual(["incoming request", "reading", "request completed"]);
    for (const [i, p] of parsed.entries()) {
      expect(p.trace_id).toBe(INCOMING_TRACE);
      expect(p.reqId).toBeTruthy();
      expect(lines[i]!.match(/"trace_id"/g)).toHaveLength(1);
    }
    // Bound from the route parameter before the handler ran: the "incoming request" line predates routing params.
    expect(parsed.slice(1).every((p) => p.prediction_id === "22222222-2222-4222-8222-222222222222")).toBe(
      true,
    );
  });

  it("adds the active span's trace id to lines outside a request", async () => {
    const log = pino(apiLoggerOptions("info", REDACT_PATHS, { isTTY: false }), {
      write: (line: string) => void lines.push(line),
    });
    lines.length = 0;
    let traceId = "";
    await inSpan("sweep", async (span) => {
      traceId = span.spanContext().traceId;
      log.warn({ apiKey: "cw_secret", nested: { secretAccessKey: "aws-secret" } }, "inside");
    });
    log.info("outside");
    const [inside, outside] = lines.map((l) => JSON.parse(l) as Record<string, unknown>);
    expect(inside!.trace_id).toBe(traceId);
    expect(outside!.trace_id).toBeUndefined();
    expect(lines.join("\n")).not.toMatch(/cw_secret|aws-secret/);
  });
});
