/**
 * Observability of the API as one registration: the request span (request-tracing.ts), HTTP
 * metrics, limit rejections and refused callbacks counted from the answers themselves. GET
 * /metrics is not on the API's port: per-tenant figures and a database query per scrape are no
 * business of API clients, so it is served by its own small server on `CAUSEWAY_METRICS_PORT`
 * (metrics-server.ts), in every mode. Call this first in buildApp, before any route.
 *
 * Limit rejections are counted from the response rather than at each check: every limit
 * refusal carries its X-Service-Error-Code by contract (service-spec §7), and the edge limit
 * is the only 403 without one, so one hook sees them all, whichever code path refused.
 */
import type { FastifyInstance } from "fastify";
import { CALLBACK_ROUTE } from "@causeway/contract";
import type { Queryable } from "../db/database.ts";
import { DatabaseGauges } from "./db-gauges.ts";
import {
  httpRequestDuration,
  httpRequests,
  LIMIT_CODES,
  recordCallbackRejected,
  recordLimitRejection,
  registry,
  statusClass,
  type LimitLabel,
} from "./metrics.ts";
import { registerRequestTracing } from "./request-tracing.ts";

const CALLBACK_REJECTIONS: Record<number, "unauthorized" | "invalid" | "unknown_job"> = {
  401: "unauthorized",
  404: "unknown_job",
  422: "invalid",
};

/** What the metrics need from the app context. */
export interface ObservabilityDeps {
  db: Queryable;
  now: () => Date;
  config: { limits: { defaultQuota: number } };
}

/** The limit a response reports, if it is a limit refusal. */
export function limitOf(status: number, errorCode: unknown, contentType: unknown): LimitLabel | null {
  if (typeof errorCode === "string") {
    return (LIMIT_CODES as readonly string[]).includes(errorCode) ? (errorCode as LimitLabel) : null;
  }
  return status === 403 && typeof contentType === "string" && contentType.startsWith("text/html")
    ? "edge"
    : null;
}

/** Registers tracing and the HTTP metrics hooks on the app. */
export function registerObservability(app: FastifyInstance, _deps: ObservabilityDeps): void {
  registerRequestTracing(app);

  app.addHook("onResponse", async (request, reply) => {
    const route = request.routeOptions.url ?? "unmatched";
    const status = reply.statusCode;
    const labels = { method: request.method, route, status_class: statusClass(status) };
    httpRequestDuration.observe(labels, reply.elapsedTime / 1000);
    httpRequests.inc(labels);
    const limit = limitOf(status, reply.getHeader("x-service-error-code"), reply.getHeader("content-type"));
    if (limit) recordLimitRejection(limit);
    const rejected = route === CALLBACK_ROUTE ? CALLBACK_REJECTIONS[status] : undefined;
    if (rejected) recordCallbackRejected(rejected);
  });
}

/** Registers GET /metrics (the process's registry plus the database gauges) on `app`. */
export function registerMetricsRoute(app: FastifyInstance, deps: ObservabilityDeps): void {
  const gauges = new DatabaseGauges({
    db: deps.db,
    now: deps.now,
    defaultQuota: deps.config.limits.defaultQuota,
  });
  app.get("/metrics", { schema: { hide: true }, logLevel: "warn" }, async (_request, reply) => {
    await gauges.sample();
    const text = (await registry.metrics()) + (await gauges.registry.metrics());
    return reply.type(registry.contentType).send(text);
  });
}
