import { mkdtemp, mkdir, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { gzipSync } from "node:zlib";
import Fastify, { type FastifyInstance } from "fastify";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { buildTestApp, type TestApp } from "../testing/helper.ts";
import { registerSecurityHeaders } from "./security-headers.ts";
import { registerWebApp } from "./web-app.ts";

let dist: string;
let app: FastifyInstance;
let unbuilt: FastifyInstance;
let t: TestApp;
beforeAll(async () => {
  dist = (await mkdtemp(join(tmpdir(), "causeway-web-"))) + "/";
  await mkdir(join(dist, "assets"));
  await writeFile(join(dist, "index.html"), "<!doctype html><title>causeway</title>");
  await writeFile(join(dist, "assets", "index-abc.js"), "console.log(1)");
  await writeFile(join(dist, "assets", "index-abc.js.gz"), gzipSync("console.log(1)"));
  // The API ignores trailing slashes (app.ts): /app is /app/.
  app = Fastify({ routerOptions: { ignoreTrailingSlash: true } });
  registerSecurityHeaders(app, ["https://s3.example"]);
  await registerWebApp(app, dist);
  unbuilt = Fastify();
  await registerWebApp(unbuilt, join(dist, "missing/"));
  t = await buildTestApp();
}, 120_000);
afterAll(async () => {
  await app?.close();
  await unbuilt?.close();
  await t?.close();
  await rm(dist, { recursive: true, force: true });
});

describe("the web app's pages and their headers", () => {
  it("redirects / to /app/ and serves the page for every client route, never cached", async () => {
    const root = await app.inject({ url: "/" });
    expect(root.statusCode).toBe(302);
    expect(root.headers.location).toBe("/app/");
    for (const url of [
      "/app",
      "/app/",
      "/app/predictions/0b7c6c2e-1111-4222-8333-444455556666",
      "/app/how-to-read",
    ]) {
      const res = await app.inject({ url });
      expect(res.statusCode, url).toBe(200);
      expect(res.headers["content-type"]).toBe("text/html; charset=utf-8");
      expect(res.headers["cache-control"]).toBe("no-cache");
      expect(res.body).toContain("<title>causeway</title>");
    }
  });

  it("serves hashed bundle files immutable, precompressed, and a missing one as 404", async () => {
    const js = await app.inject({ url: "/app/assets/index-abc.js", headers: { "accept-encoding": "gzip" } });
    expect(js.statusCode).toBe(200);
    expect(js.headers["cache-control"]).toContain("immutable");
    expect(js.headers["content-encoding"]).toBe("gzip");
    expect((await app.inject({ url: "/app/assets/index-old.js" })).statusCode).toBe(404);
    expect((await app.inject({ url: "/app/assets/../index.html" })).statusCode).not.toBe(500);
  });

  it("puts a strict CSP, nosniff and no framing on pages, and default-src 'none' on everything else", async () => {
    const page = await app.inject({ url: "/app/" });
    const csp = page.headers["content-security-policy"] as string;
    expect(csp).toContain("default-src 'self'");
    expect(csp).toContain("script-src 'self'");
    expect(csp).toContain("frame-ancestors 'none'");
    expect(csp).toContain("connect-src 'self' https://s3.example");
    expect(csp).not.toMatch(/unsafe-inline|unsafe-eval/);
    expect(page.headers["x-content-type-options"]).toBe("nosniff");
    expect(page.headers["x-frame-options"]).toBe("DENY");
    expect(page.headers["access-control-allow-origin"]).toBeUndefined();
    const docs = (await app.inject({ url: "/docs" })).headers["content-security-policy"] as string;
    expect(docs).toContain("script-src 'self';");
    expect(docs).toContain("style-src 'self' 'unsafe-inline'");
    expect(docs).not.toMatch(/script-src[^;]*unsafe|unsafe-eval/);
    const redirect = await app.inject({ url: "/" });
    expect(redirect.headers["content-security-policy"]).toBe(
      "default-src 'none'; frame-ancestors 'none'; sandbox",
    );
  });

  it("says how to build the app when it is not built", async () => {
    const res = await unbuilt.inject({ url: "/app/" });
    expect(res.statusCode).toBe(503);
    expect(res.body).toContain("npm run build -w @causeway/web");
  });

  it("the API sends the headers on /docs, on JSON answers, and no CORS headers", async () => {
    const docs = await t.app.inject({ url: "/docs/" });
    expect(docs.headers["content-security-policy"]).toContain("script-src 'self'");
    expect(docs.headers["x-frame-options"]).toBe("DENY");
    const preflight = await t.app.inject({
      method: "OPTIONS",
      url: "/v1/predictions",
      headers: { origin: "https://evil.example", "access-control-request-method": "GET" },
    });
    expect(preflight.headers["access-control-allow-origin"]).toBeUndefined();
    const json = await t.app.inject({ url: "/v1/predictions", headers: { origin: "https://evil.example" } });
    expect(json.headers["content-security-policy"]).toContain("default-src 'none'");
    expect(json.headers["access-control-allow-origin"]).toBeUndefined();
    expect(json.headers["x-content-type-options"]).toBe("nosniff");
  });
});
