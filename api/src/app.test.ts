import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { buildTestApp, completeJob, submit, validationArtifacts, type TestApp } from "./testing/helper.ts";

let t: TestApp;
beforeAll(async () => {
  t = await buildTestApp({
    CAUSEWAY_EDGE_LIMIT_ENABLED: "true",
    CAUSEWAY_EDGE_LIMIT: "5",
    CAUSEWAY_EDGE_WINDOW_SECONDS: "60",
  });
}, 120_000);
afterAll(async () => t.close());

// Each test uses its own client address so the edge limit of one does not spill into another.
let n = 0;
const fromNewAddress = () => `10.0.0.${++n}`;

describe("health", () => {
  it("/health needs no key; /livez and /readyz answer", async () => {
    const ip = fromNewAddress();
    expect((await t.app.inject({ url: "/health", remoteAddress: ip })).json()).toEqual({ status: "ok" });
    expect((await t.app.inject({ url: "/livez", remoteAddress: ip })).statusCode).toBe(200);
    const ready = await t.app.inject({ url: "/readyz", remoteAddress: ip });
    expect(ready.statusCode).toBe(200);
    expect(ready.json().checks).toEqual({ database: "ok", limits: "ok", storage: "ok" });
  });
});

describe("edge limit", () => {
  it("blocks the sixth request from one address with 403 HTML and no error-code header, on any route", async () => {
    const ip = fromNewAddress();
    for (let i = 0; i < 5; i++)
      expect((await t.app.inject({ url: "/health", remoteAddress: ip })).statusCode).toBe(200);
    const blocked = await t.app.inject({ url: "/v1/predictions", remoteAddress: ip });
    expect(blocked.statusCode).toBe(403);
    expect(blocked.headers["content-type"]).toContain("text/html");
    expect(blocked.headers["x-service-error-code"]).toBeUndefined();
    expect(blocked.body).toContain("<html>");
    // Another address is unaffected; the window slides.
    expect((await t.app.inject({ url: "/health", remoteAddress: fromNewAddress() })).statusCode).toBe(200);
    t.clock.advance(61_000);
    expect((await t.app.inject({ url: "/health", remoteAddress: ip })).statusCode).toBe(200);
  });

  it("ignores X-Forwarded-For from untrusted peers", async () => {
    const ip = fromNewAddress();
    for (let i = 0; i < 5; i++) {
      await t.app.inject({
        url: "/health",
        remoteAddress: ip,
        headers: { "x-forwarded-for": `192.168.1.${i}` },
      });
    }
    expect(
      (
        await t.app.inject({
          url: "/health",
          remoteAddress: ip,
          headers: { "x-forwarded-for": "192.168.9.9" },
        })
      ).statusCode,
    ).toBe(403);
  });
});

describe("trusted proxies", () => {
  it("uses X-Forwarded-For only behind a configured proxy", async () => {
    const t2 = await buildTestApp({
      CAUSEWAY_EDGE_LIMIT_ENABLED: "true",
      CAUSEWAY_EDGE_LIMIT: "2",
      CAUSEWAY_TRUSTED_PROXIES: "10.9.9.9",
    });
    try {
      const via = (client: string) =>
        t2.app.inject({ url: "/health", remoteAddress: "10.9.9.9", headers: { "x-forwarded-for": client } });
      expect((await via("1.1.1.1")).statusCode).toBe(200);
      expect((await via("1.1.1.1")).statusCode).toBe(200);
      expect((await via("1.1.1.1")).statusCode).toBe(403);
      expect((await via("2.2.2.2")).statusCode).toBe(200);
    } finally {
      await t2.close();
    }
  });
});

describe("OpenAPI", () => {
  it("documents all 14 contract routes and the event stream at version 1.0.0, with the multipart form", async () => {
    const doc = (await t.app.inject({ url: "/openapi.json", remoteAddress: fromNewAddress() })).json();
    expect(doc.info.version).toBe("1.0.0");
    const ops = Object.entries(doc.paths as Record<string, Record<string, unknown>>).flatMap(([p, v]) =>
      Object.keys(v).map((m) => `${m.toUpperCase()} ${p}`),
    );
    expect(ops.sort()).toEqual(
      [
        "GET /health",
        "GET /v1/causal-analysis",
        "GET /v1/causal-analysis/{causal_analysis_id}",
        "GET /v1/causal-analysis/{causal_analysis_id}/graph",
        "GET /v1/causal-analysis/{causal_analysis_id}/graph/export",
        "GET /v1/predictions",
        "GET /v1/predictions/{prediction_id}",
        "GET /v1/predictions/{prediction_id}/causal-graph",
        "GET /v1/predictions/{prediction_id}/causal-graph/export",
        "GET /v1/predictions/{prediction_id}/causal-paths",
        "GET /v1/predictions/{prediction_id}/degs-impacted",
        "GET /v1/predictions/{prediction_id}/events",
        "GET /v1/predictions/{prediction_id}/intermediary-proteins",
        "GET /v1/predictions/{prediction_id}/mapped-degs",
        "GET /v1/predictions/{prediction_id}/targets",
        "GET /v1/usage/predictions/quota",
        "POST /v1/causal-analysis",
        "POST /v1/genes/resolve",
        "POST /v1/predictions",
      ].sort(),
    );
    const body = doc.paths["/v1/predictions"].post.requestBody.content["multipart/form-data"].schema;
    const form = doc.components.schemas[body.allOf[0].$ref.split("/").pop()];
    // Every referenced schema exists.
    for (const ref of JSON.stringify(doc).match(/#\/components\/schemas\/[A-Za-z0-9_]+/g) ?? []) {
      expect(doc.components.schemas).toHaveProperty(ref.split("/").pop()!);
    }
    expect(form.properties.top_n_causal_degs).toMatchObject({ default: 1000, minimum: 1, maximum: 100000 });
    expect((await t.app.inject({ url: "/docs", remoteAddress: fromNewAddress() })).statusCode).toBeLessThan(
      400,
    );
  });
});

describe("errors", () => {
  it("answers unknown routes with a JSON 404", async () => {
    const res = await t.app.inject({ url: "/nope", remoteAddress: fromNewAddress() });
    expect(res.statusCode).toBe(404);
    expect(res.json()).toEqual({ detail: "Not found." });
  });
});

describe("artifact downloads (filesystem store)", () => {
  it("serves a presigned link until it expires; tampered tokens are 404; no key in the URL", async () => {
    const a = await t.account("internal");
    const ip = fromNewAddress;
    const id = await submit(t, a.key);
    await completeJob(t, "prediction", id, validationArtifacts());
    const status = (
      await t.app.inject({
        url: `/v1/predictions/${id}`,
        headers: { "x-api-key": a.key },
        remoteAddress: ip(),
      })
    ).json();
    const link = status.artifacts.find((x: { name: string }) => x.name === "mapped_degs.json").url as string;
    expect(link).not.toContain("jobs/");
    expect(link).not.toContain(id);
    const path = new URL(link).pathname;
    const ok = await t.app.inject({ url: path, remoteAddress: ip() });
    expect(ok.statusCode).toBe(200);
    expect(ok.headers["content-disposition"]).toBe('attachment; filename="mapped_degs.json"');
    expect(ok.headers["content-type"]).toMatch(/^application\/json/);
    expect(JSON.parse(ok.body)).toEqual(["IRF1", "GBP1", "OTHER"]);
    // A table is served as one, so a browser opens it as text rather than an opaque download.
    const tsv = status.artifacts.find((x: { name: string }) => x.name === "target_scores.tsv").url as string;
    const table = await t.app.inject({ url: new URL(tsv).pathname, remoteAddress: ip() });
    expect(table.headers["content-type"]).toMatch(/^text\/tab-separated-values/);
    expect(table.body.split("\n")[0]).toMatch(/^id\tnode_type/);
    const tampered = path.slice(0, -2) + (path.endsWith("AA") ? "BB" : "AA");
    expect((await t.app.inject({ url: tampered, remoteAddress: ip() })).statusCode).toBe(404);
    t.clock.advance(t.ctx.config.presignTtlSeconds * 1000 + 1000);
    expect((await t.app.inject({ url: path, remoteAddress: ip() })).statusCode).toBe(404);
  });
});
