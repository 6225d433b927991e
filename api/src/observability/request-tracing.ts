/**
 * One server span per request, continuing the caller's W3C `traceparent` (a client, or a
 * runner's callback), with manual child spans for the phases of a submission (validate,
 * store, enqueue). Manual rather than @fastify/otel: three hooks and a handler wrapper are all
 * a trace per prediction needs, with no monkey-patching of Node's http module.
 *
 * The span starts in the child-logger factory, which Fastify calls before it logs "incoming
 * request", so every line of a request — that one included — carries its trace id. When no
 * tracer provider is registered the spans are the API's no-op spans: an incoming trace id is
 * still passed on (to logs and to the runner) and nothing else is recorded.
 */
import type { IncomingMessage } from "node:http";
import {
  context,
  isSpanContextValid,
  ROOT_CONTEXT,
  SpanKind,
  SpanStatusCode,
  trace,
  type Span,
} from "@opentelemetry/api";
import type { FastifyInstance, FastifyReply, FastifyRequest, RouteHandlerMethod } from "fastify";
import { contextFromTraceparent, traceContextOf, tracer } from "@causeway/contract/telemetry";
import { markTraced } from "./logging.ts";

interface RequestSpans {
  span: Span;
  /** The open phase of a submission (see startPhase). */
  phase: Span | null;
}

const spans = new WeakMap<IncomingMessage, RequestSpans>();

const header = (req: IncomingMessage, name: string): string | undefined => {
  const v = req.headers[name];
  return typeof v === "string" ? v : undefined;
};

/** Installs the request span (hooks must run before routes are declared: call it first). */
export function registerRequestTracing(app: FastifyInstance): void {
  app.setChildLoggerFactory(function (logger, bindings, opts, rawReq) {
    const parent = contextFromTraceparent(header(rawReq, "traceparent"), header(rawReq, "tracestate"));
    const span = tracer().startSpan(
      rawReq.method ?? "HTTP",
      { kind: SpanKind.SERVER, attributes: { "http.request.method": rawReq.method ?? "" } },
      parent,
    );
    spans.set(rawReq, { span, phase: null });
    const sc = span.spanContext();
    if (!isSpanContextValid(sc)) return logger.child(bindings, opts);
    return markTraced(logger.child({ ...bindings, trace_id: sc.traceId, span_id: sc.spanId }, opts));
  });

  app.addHook("onRequest", async (request) => {
    const s = spans.get(request.raw);
    if (!s) return;
    // The route template only: a raw URL can hold a download token (a capability).
    const route = request.routeOptions.url ?? "unmatched";
    s.span.updateName(`${request.method} ${route}`);
    s.span.setAttribute("http.route", route);
    const params = (request.params ?? {}) as Record<string, unknown>;
    if (typeof params.prediction_id === "string") bindJob(request, "prediction", params.prediction_id);
    else if (typeof params.causal_analysis_id === "string")
      bindJob(request, "causal_analysis", params.causal_analysis_id);
    else if (
      typeof params.job_id === "string" &&
      (params.kind === "prediction" || params.kind === "causal_analysis")
    )
      bindJob(request, params.kind, params.job_id);
  });

  // Handlers run with the request span active, so spans they start (the cluster dispatcher's,
  // the job service's) and the log mixin see it.
  app.addHook("onRoute", (route) => {
    const handler = route.handler as (this: FastifyInstance, ...args: unknown[]) => unknown;
    route.handler = function (this: FastifyInstance, request: FastifyRequest, reply: FastifyReply) {
      const s = spans.get(request.raw);
      if (!s) return handler.call(this, request, reply);
      return context.with(trace.setSpan(context.active(), s.span), () => handler.call(this, request, reply));
    } as RouteHandlerMethod;
  });

  app.addHook("onResponse", async (request, reply) => {
    finish(request, reply.statusCode, false);
  });
  app.addHook("onRequestAbort", async (request) => {
    finish(request, 499, true);
  });
}

function finish(request: FastifyRequest, status: number, aborted: boolean): void {
  const s = spans.get(request.raw);
  if (!s) return;
  spans.delete(request.raw);
  endPhase(s, status >= 400);
  s.span.setAttribute("http.response.status_code", status);
  if (aborted) s.span.setAttribute("causeway.client_aborted", true);
  if (status >= 500) s.span.setStatus({ code: SpanStatusCode.ERROR });
  s.span.end();
}

function endPhase(s: RequestSpans, failed: boolean): void {
  if (!s.phase) return;
  if (failed) s.phase.setStatus({ code: SpanStatusCode.ERROR });
  s.phase.end();
  s.phase = null;
}

/**
 * Ends the current phase of a request (if any) and starts `name` as a child of the request
 * span; the last phase ends with the response. Marks where time goes in a submission without
 * wrapping its code in callbacks.
 */
export function startPhase(request: FastifyRequest, name: string): void {
  const s = spans.get(request.raw);
  if (!s) return;
  endPhase(s, false);
  s.phase = tracer().startSpan(name, {}, trace.setSpan(ROOT_CONTEXT, s.span));
}

/**
 * The W3C trace context a job should continue: the open phase's (enqueue) or the request's.
 * Empty when the request is not traced at all (no provider and no incoming traceparent).
 */
export function jobTraceContext(request: FastifyRequest): { traceparent?: string; tracestate?: string } {
  const s = spans.get(request.raw);
  const span = s?.phase ?? s?.span;
  return span ? traceContextOf(span) : {};
}

/**
 * Names the job a request is about on every later log line (`prediction_id` or
 * `causal_analysis_id`) and on its span.
 */
export function bindJob(request: FastifyRequest, kind: "prediction" | "causal_analysis", id: string): void {
  const key = kind === "prediction" ? "prediction_id" : "causal_analysis_id";
  // pino's setBindings changes the request logger in place, so reply.log ("request completed") has it too.
  const log = request.log as { setBindings?: (bindings: Record<string, string>) => void };
  if (typeof log.setBindings === "function") log.setBindings({ [key]: id });
  spans.get(request.raw)?.span.setAttribute(`causeway.${key}`, id);
}

/** A request's tracing as a service sees it: services take plain inputs, not the request. */
export interface JobTrace {
  /** See bindJob. */
  bindJob(kind: "prediction" | "causal_analysis", id: string): void;
  /** See startPhase. */
  startPhase(name: string): void;
  /** See jobTraceContext. */
  jobContext(): { traceparent?: string; tracestate?: string };
}

export function requestJobTrace(request: FastifyRequest): JobTrace {
  return {
    bindJob: (kind, id) => bindJob(request, kind, id),
    startPhase: (name) => startPhase(request, name),
    jobContext: () => jobTraceContext(request),
  };
}
