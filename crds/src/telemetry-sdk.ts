/**
 * The OpenTelemetry SDK half of telemetry.ts, imported only when tracing is on: a tracer
 * provider with the OTLP exporter (or a test's exporter), registered globally with the W3C
 * trace-context propagator.
 */
import { W3CTraceContextPropagator } from "@opentelemetry/core";
import { OTLPTraceExporter } from "@opentelemetry/exporter-trace-otlp-http";
import { resourceFromAttributes } from "@opentelemetry/resources";
import { BatchSpanProcessor, SimpleSpanProcessor, type SpanExporter } from "@opentelemetry/sdk-trace-base";
import { NodeTracerProvider } from "@opentelemetry/sdk-trace-node";

export function registerProvider(serviceName: string, exporter?: SpanExporter): NodeTracerProvider {
  const provider = new NodeTracerProvider({
    resource: resourceFromAttributes({ "service.name": serviceName }),
    spanProcessors: [
      exporter ? new SimpleSpanProcessor(exporter) : new BatchSpanProcessor(new OTLPTraceExporter()),
    ],
  });
  provider.register({ propagator: new W3CTraceContextPropagator() });
  return provider;
}
