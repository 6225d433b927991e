/**
 * Smaller findings of the attack run: Fastify's own 414 and bad-URL answers in the service's
 * error shape and counted by the edge limit; the callback route's rate limit; the per-key cap
 * on open event streams.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { buildMetricsApp } from "../observability/metrics-server.ts";
import { buildTestApp, submit, type TestApp } from "../testing/helper.ts";
import { openSse, type SseStream } from "../testing/sse.ts";

let t: TestApp;
let base: string;
let key: string;
beforeAll(async () => {
  t = await buildTestApp({
    CAUSEWAY_EDGE_LIMIT_ENABLED: "true",
    CAUSEWAY_EDGE_LIMIT: "1000",
    CAUSEWAY_INFLIGHT_LIMIT: "1000",
    CAUSEWAY_RATE_LIMIT: "100000",
    CAUSEWAY_CALLBACK_RATE_LIMIT: "5",
    CAUSEWAY_MAX_EVENT_STREAMS_PER_KEY: "3",
  });
  base = await t.app.listen({ host: "127.0.0.1", port: 0 });
  key = (await t.account("internal")).key;
}, 120_000);
afterAll(async () => t.close());

describe("framework errors", () => {
  it("a path parameter over 1,024 characters is a 414 in the service's shape, without echoing the URL", async () => {
    const long = "a".repeat(1100);
    const res = await t.app.inject({ url: `/v1/predictions/${long}`, headers: { "x-api-key": key } });
    expect(res.statusCode).toBe(414);
    expect(res.headers["x-service-error-code"]).toBe("uri_too_long");
    expect(res.json()).toEqual({
      detail: "The request URL is too long: a path parameter exceeds 1024 characters.",
    });
    expect(res.body).not.toContain("aaaa");
  });

  it("a path that is not valid percent-encoding is a 422 on the path", async () => {
    const res = await t.app.inject({ url: "/v1/predictions/%zz", headers: { "x-api-key": key } });
    expect(res.statusCode).toBe(422);
    expect(res.json().detail[0]).toMatchObject({ loc: ["path"], type: "url_invalid" });
  });

  it("both count against the edge limit", async () => {
    const app = await buildTestApp({ CAUSEWAY_EDGE_LIMIT_ENABLED: "true", CAUSEWAY_EDGE_LIMIT: "2" });
    try {
      const codes = [];
      for (const url of [`/files/${"b".repeat(1100)}`, "/v1/predictions/%zz", `/files/${"b".repeat(1100)}`])
        codes.push((await app.app.inject({ url })).statusCode);
      expect(codes).toEqual([414, 422, 403]);
    } finally {
      await app.close();
    }
  });
});

describe("callback route rate limit", () => {
  it("answers 429 rate_limited with Retry-After once an address sends more than the limit per minute", async () => {
    const codes: number[] = [];
    for (let i = 0; i < 7; i++) {
      const res = await t.app.inject({
        method: "POST",
        url: "/internal/v1/jobs/prediction/00000000-0000-4000-8000-000000000000/callback",
        headers: { "content-type": "application/json" },
        payload: "{}",
      });
      codes.push(res.statusCode);
      if (res.statusCode === 429) {
        expect(res.headers["x-service-error-code"]).toBe("rate_limited");
        expect(Number(res.headers["retry-after"])).toBeGreaterThan(0);
      }
    }
    // Forged callbacks are 401 until the limit, then refused before the signature is checked.
    expect(codes).toEqual([401, 401, 401, 401, 401, 429, 429]);
    t.clock.advance(61_000);
  });
});

describe("event streams per key", () => {
  it("holds at most the configured number open per key; closing one frees a place", async () => {
    const id = await submit(t, key);
    const streams: SseStream[] = [];
    for (let i = 0; i < 3; i++) {
      const s = await openSse(`${base}/v1/predictions/${id}/events`, { "x-api-key": key });
      expect(s.status).toBe(200);
      await s.next();
      streams.push(s);
    }
    const refused = await fetch(`${base}/v1/predictions/${id}/events`, { headers: { "x-api-key": key } });
    expect(refused.status).toBe(429);
    expect(refused.headers.get("x-service-error-code")).toBe("rate_limited");
    expect(refused.headers.get("retry-after")).toBe("5");
    // Another key of another account is not affected.
    const other = await t.account("internal");
    const otherId = await submit(t, other.key);
    const theirs = await openSse(`${base}/v1/predictions/${otherId}/events`, { "x-api-key": other.key });
    expect(theirs.status).toBe(200);
    theirs.close();
    streams.pop()!.close();
    await new Promise((r) => setTimeout(r, 200));
    const again = await openSse(`${base}/v1/predictions/${id}/events`, { "x-api-key": key });
    expect(again.status).toBe(200);
    again.close();
    for (const s of streams) s.close();
  });

  it("holds the cap when many streams are opened at once, and a refused or missing one takes no place", async () => {
    const { key: k } = await t.account("internal");
    const id = await submit(t, k);
    const burst = await Promise.all(
      Array.from({ length: 8 }, () => openSse(`${base}/v1/predictions/${id}/events`, { "x-api-key": k })),
    );
    expect(burst.filter((s) => s.status === 200)).toHaveLength(3);
    expect(burst.filter((s) => s.status === 429)).toHaveLength(5);
    for (const s of burst) s.close();
    await new Promise((r) => setTimeout(r, 200));
    // A missing prediction's 404 gives its place back at once.
    for (let i = 0; i < 4; i++) {
      const missing = await fetch(`${base}/v1/predictions/00000000-0000-4000-8000-000000000000/events`, {
        headers: { "x-api-key": k },
      });
      expect(missing.status).toBe(404);
    }
    const open = await openSse(`${base}/v1/predictions/${id}/events`, { "x-api-key": k });
    expect(open.status).toBe(200);
    open.close();
  });
});

describe("/metrics", () => {
  it("is not served on the API's port, only by the metrics listener", async () => {
    const onApi = await fetch(`${base}/metrics`);
    expect(onApi.status).toBe(404);
    expect(await onApi.text()).not.toContain("causeway_");
    const metrics = buildMetricsApp(t.ctx);
    try {
      const res = await metrics.inject({ url: "/metrics" });
      expect(res.statusCode).toBe(200);
      expect(res.body).toContain("causeway_http_requests_total");
      expect((await metrics.inject({ url: "/v1/predictions" })).statusCode).toBe(404);
    } finally {
      await metrics.close();
    }
  });

  it("listens on loopback by default with the embedded database, on HOST with PostgreSQL", async () => {
    const { loadConfig } = await import("../config.ts");
    expect(loadConfig({}).metrics).toEqual({ port: 9464, host: "127.0.0.1" });
    expect(
      loadConfig({ DATABASE_URL: "postgres://x/y", CAUSEWAY_CALLBACK_SECRET: "s".repeat(40) }).metrics,
    ).toEqual({ port: 9464, host: "0.0.0.0" });
  });
});
