import Fastify, { type FastifyInstance } from "fastify";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { buildTestApp, submit, type TestApp } from "../testing/helper.ts";
import { limitOf, registerMetricsRoute, registerObservability } from "./plugin.ts";
import { sample } from "./testing.ts";

let t: TestApp;
let app: FastifyInstance;

beforeAll(async () => {
  t = await buildTestApp();
  // A bare app with the observability registration and routes that answer like the API's limits.
  app = Fastify({ logger: false });
  registerObservability(app, t.ctx);
  registerMetricsRoute(app, t.ctx);
  app.get("/limited/:code", async (request, reply) =>
    reply
      .code(429)
      .header("x-service-error-code", (request.params as { code: string }).code)
      .send({ detail: "limited" }),
  );
  app.get("/policy", async (_request, reply) =>
    reply.code(403).header("x-service-error-code", "job_type_not_allowed").send({ detail: "no" }),
  );
  app.get("/edge", async (_request, reply) =>
    reply.code(403).type("text/html; charset=utf-8").send("<html/>"),
  );
  app.get("/v1/predictions/:prediction_id", async () => ({ ok: true }));
  app.post("/internal/v1/jobs/:kind/:job_id/callback", async (_request, reply) => reply.code(401).send({}));
  await app.ready();
}, 120_000);

afterAll(async () => {
  await app?.close();
  await t?.close();
});

const scrape = async (): Promise<string> => {
  const res = await app.inject({ method: "GET", url: "/metrics" });
  expect(res.statusCode).toBe(200);
  expect(res.headers["content-type"]).toContain("text/plain");
  return res.body;
};

describe("observability registration", () => {
  it("counts requests by route template, never by the concrete path", async () => {
    const before = await scrape();
    const series =
      'causeway_http_requests_total{method="GET",route="/v1/predictions/:prediction_id",status_class="2xx"}';
    await app.inject({ method: "GET", url: "/v1/predictions/3f1c2a52-2b0e-4d8f-9a43-0d3a3c1b7e10" });
    await app.inject({ method: "GET", url: "/v1/predictions/11111111-2b0e-4d8f-9a43-0d3a3c1b7e10" });
    await app.inject({ method: "GET", url: "/nowhere" });
    const after = await scrape();
    expect(sample(after, series) - sample(before, series)).toBe(2);
    expect(after).toContain('route="unmatched",status_class="4xx"');
    expect(after).not.toContain("3f1c2a52");
    expect(after).toMatch(
      /causeway_http_request_duration_seconds_count\{method="GET",route="\/v1\/predictions\/:prediction_id",status_class="2xx"\} \d/,
    );
    // Default process and Node.js metrics.
    expect(after).toContain("causeway_api_process_cpu_user_seconds_total");
    expect(after).toContain("causeway_api_nodejs_eventloop_lag_seconds");
  });

  it("counts each limit refusal under its code, the edge block included, and nothing else", async () => {
    const before = await scrape();
    for (const code of ["rate_limited", "inflight_limit", "external_prediction_quota_exceeded"])
      await app.inject({ method: "GET", url: `/limited/${code}` });
    await app.inject({ method: "GET", url: "/edge" });
    await app.inject({ method: "GET", url: "/policy" });
    const after = await scrape();
    for (const limit of ["rate_limited", "inflight_limit", "external_prediction_quota_exceeded", "edge"]) {
      const series = `causeway_limit_rejections_total{limit="${limit}"}`;
      expect(sample(after, series) - sample(before, series), limit).toBe(1);
    }
    expect(after).not.toContain('limit="job_type_not_allowed"');
  });

  it("maps answers to limits", () => {
    expect(limitOf(429, "inflight_limit", "application/json")).toBe("inflight_limit");
    expect(limitOf(403, undefined, "text/html; charset=utf-8")).toBe("edge");
    expect(limitOf(403, "job_type_not_allowed", "application/json")).toBeNull();
    expect(limitOf(503, "service_unavailable", "application/json")).toBeNull();
  });

  it("counts refused callbacks by reason", async () => {
    const before = await scrape();
    await app.inject({
      method: "POST",
      url: "/internal/v1/jobs/prediction/3f1c2a52-2b0e-4d8f-9a43-0d3a3c1b7e10/callback",
      payload: {},
    });
    const after = await scrape();
    const series = 'causeway_callbacks_rejected_total{reason="unauthorized"}';
    expect(sample(after, series) - sample(before, series)).toBe(1);
  });

  it("reads pending jobs, their age and quota exhaustion from the database at scrape time", async () => {
    const account = await t.account("external", 1);
    const before = await scrape();
    expect(sample(before, "causeway_db_metrics_sample_success")).toBe(1);
    const pending = 'causeway_jobs_unfinished{job_type="target_validation",status="pending"}';
    expect(sample(before, pending)).toBe(0);
    await submit(t, account.key);
    t.clock.advance(90_000);
    const after = await scrape();
    expect(sample(after, pending)).toBe(1);
    expect(sample(after, 'causeway_jobs_oldest_pending_age_seconds{job_type="target_validation"}')).toBe(90);
    expect(sample(after, 'causeway_quota_accounts_exhausted{tier="external"}')).toBe(1);
    expect(sample(after, 'causeway_quota_accounts_near_exhaustion{tier="external"}')).toBe(1);
    expect(sample(after, 'causeway_quota_accounts{tier="external"}')).toBe(1);
  });
});
