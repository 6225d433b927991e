/** With no tracer provider (the embedded default): nothing is recorded, an incoming trace is still passed on. */
import { createRequire } from "node:module";
import Fastify, { type FastifyBaseLogger, type FastifyInstance } from "fastify";
import pino from "pino";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { initTracing, tracingRequested } from "@causeway/contract/telemetry";
import { REDACT_PATHS } from "../app.ts";
import { apiLoggerOptions, prettyTransport } from "./logging.ts";
import { jobTraceContext, registerRequestTracing, startPhase } from "./request-tracing.ts";

const lines: string[] = [];
let app: FastifyInstance;
const INCOMING = "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01";

beforeAll(async () => {
  const logger: FastifyBaseLogger = pino(apiLoggerOptions("info", REDACT_PATHS, { isTTY: false }), {
    write: (line: string) => void lines.push(line),
  });
  app = Fastify({ loggerInstance: logger });
  registerRequestTracing(app);
  app.post("/v1/predictions", async (request) => {
    startPhase(request, "prediction.enqueue");
    return jobTraceContext(request);
  });
  await app.ready();
});
afterAll(async () => app?.close());

describe("tracing off", () => {
  it("is off unless OTEL_* ask for it", async () => {
    expect(tracingRequested({})).toBe(false);
    expect(tracingRequested({ OTEL_EXPORTER_OTLP_ENDPOINT: "http://collector:4318" })).toBe(true);
    expect(
      tracingRequested({ OTEL_EXPORTER_OTLP_ENDPOINT: "http://c:4318", OTEL_SDK_DISABLED: "true" }),
    ).toBe(false);
    expect(
      tracingRequested({ OTEL_TRACES_EXPORTER: "none", OTEL_EXPORTER_OTLP_ENDPOINT: "http://c:4318" }),
    ).toBe(false);
    expect((await initTracing("causeway-api")).enabled).toBe(false);
  });

  it("passes an incoming traceparent on to the job and the logs unchanged", async () => {
    lines.length = 0;
    const res = await app.inject({
      method: "POST",
      url: "/v1/predictions",
      headers: { traceparent: INCOMING },
    });
    expect(res.json()).toEqual({ traceparent: INCOMING });
    for (const line of lines) expect(JSON.parse(line).trace_id).toBe("4bf92f3577b34da6a3ce929d0e0e4736");
  });

  it("hands nothing on when nothing came in", async () => {
    lines.length = 0;
    const res = await app.inject({ method: "POST", url: "/v1/predictions" });
    expect(res.json()).toEqual({});
    for (const line of lines) expect(JSON.parse(line)).not.toHaveProperty("trace_id");
  });

  it("prints JSON unless stdout is a terminal and pino-pretty is installed", () => {
    expect(prettyTransport({ isTTY: false })).toBeUndefined();
    let installed = true;
    try {
      createRequire(import.meta.url).resolve("pino-pretty");
    } catch {
      installed = false;
    }
    expect(prettyTransport({ isTTY: true })?.target).toBe(installed ? "pino-pretty" : undefined);
    expect(apiLoggerOptions("info", [], { isTTY: false })).not.toHaveProperty("transport");
  });
});
