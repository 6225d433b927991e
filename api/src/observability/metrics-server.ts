/**
 * The metrics port: GET /metrics for Prometheus on its own listener (`CAUSEWAY_METRICS_PORT`,
 * default 9464; `CAUSEWAY_METRICS_HOST`, default 127.0.0.1 with the embedded database and the
 * API's HOST otherwise), never on the API's public port. No API key: the port is for the
 * scraper, kept off the Ingress (the chart's Service names it `metrics`, its ServiceMonitor
 * scrapes it). Everything else on it is a 404.
 */
import Fastify, { type FastifyInstance } from "fastify";
import type { Config } from "../config.ts";
import { registerMetricsRoute, type ObservabilityDeps } from "./plugin.ts";

export function buildMetricsApp(deps: ObservabilityDeps): FastifyInstance {
  const app = Fastify({ logger: false });
  registerMetricsRoute(app, deps);
  return app;
}

/** Starts the metrics listener; returns the app (closed with the server). */
export async function startMetricsServer(
  deps: ObservabilityDeps,
  config: Pick<Config, "metrics">,
): Promise<FastifyInstance> {
  const app = buildMetricsApp(deps);
  await app.listen({ port: config.metrics.port, host: config.metrics.host });
  return app;
}
