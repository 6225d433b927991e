/**
 * OpenTelemetry tracing for every component (API, operator, runner). Off unless the standard
 * OTEL_* variables ask for an exporter, so the embedded default pays nothing: without a
 * registered provider the OpenTelemetry API hands out no-op spans. Tests register an
 * in-memory exporter instead.
 */
import {
  context,
  isSpanContextValid,
  propagation,
  ROOT_CONTEXT,
  trace,
  type Context,
  type Span,
  type Tracer,
} from "@opentelemetry/api";
import { W3CTraceContextPropagator } from "@opentelemetry/core";
import type { SpanExporter } from "@opentelemetry/sdk-trace-base";

export interface TracingHandle {
  enabled: boolean;
  /** Flushes pending spans; call before the process exits. */
  shutdown(): Promise<void>;
}

/** Whether the standard variables ask for traces (OTEL_TRACES_EXPORTER, OTEL_EXPORTER_OTLP_*). */
export function tracingRequested(env: NodeJS.ProcessEnv = process.env): boolean {
  if (env.OTEL_SDK_DISABLED === "true") return false;
  const exporter = env.OTEL_TRACES_EXPORTER;
  if (exporter !== undefined) return exporter !== "none";
  return Boolean(env.OTEL_EXPORTER_OTLP_ENDPOINT || env.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT);
}

/**
 * Registers a tracer provider for `serviceName` when tracing is requested or an exporter is
 * given (tests). The OTLP exporter reads its endpoint and headers from OTEL_* itself. The SDK
 * and the exporter are loaded only then (~12 MB of a process's memory otherwise).
 */
export async function initTracing(
  serviceName: string,
  options: { exporter?: SpanExporter } = {},
): Promise<TracingHandle> {
  if (!options.exporter && !tracingRequested()) return { enabled: false, shutdown: async () => {} };
  const { registerProvider } = await import("./telemetry-sdk.ts");
  const provider = registerProvider(process.env.OTEL_SERVICE_NAME ?? serviceName, options.exporter);
  return { enabled: true, shutdown: () => provider.shutdown() };
}

export const tracer = (): Tracer => trace.getTracer("causeway");

/** W3C trace context of the active span as a plain carrier ({traceparent, tracestate}). */
export function currentTraceContext(ctx: Context = context.active()): {
  traceparent?: string;
  tracestate?: string;
} {
  const carrier: Record<string, string> = {};
  // The global propagator is a no-op until a provider registers one; inject explicitly.
  new W3CTraceContextPropagator().inject(ctx, carrier, {
    set: (c, k, v) => {
      c[k] = v;
    },
  });
  return carrier;
}

/** `trace_id` and `span_id` of the active span for a log line (a pino mixin); empty without one. */
export function activeTraceFields(): { trace_id?: string; span_id?: string } {
  const sc = trace.getActiveSpan()?.spanContext();
  return sc && isSpanContextValid(sc) ? { trace_id: sc.traceId, span_id: sc.spanId } : {};
}

/** W3C trace context of `span` itself, for a child that runs elsewhere (a Job, a resource, a process). */
export function traceContextOf(span: Span): { traceparent?: string; tracestate?: string } {
  return currentTraceContext(trace.setSpan(ROOT_CONTEXT, span));
}

/** A context continuing the trace of a `traceparent` (from TRACEPARENT, an annotation, a header). */
export function contextFromTraceparent(traceparent: string | undefined, tracestate?: string): Context {
  if (!traceparent) return context.active();
  const carrier: Record<string, string> = { traceparent, ...(tracestate ? { tracestate } : {}) };
  return new W3CTraceContextPropagator().extract(context.active(), carrier, {
    get: (c, k) => c[k],
    keys: (c) => Object.keys(c),
  });
}

/** Runs `fn` inside a span that ends (with its error recorded) when `fn` settles. */
export async function inSpan<T>(name: string, fn: (span: Span) => Promise<T>, parent?: Context): Promise<T> {
  return tracer().startActiveSpan(name, {}, parent ?? context.active(), async (span) => {
    try {
      return await fn(span);
    } catch (err) {
      span.recordException(err instanceof Error ? err : String(err));
      span.setStatus({ code: 2 });
      throw err;
    } finally {
      span.end();
    }
  });
}

export { propagation };
