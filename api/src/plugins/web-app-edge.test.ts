/**
 * The web app beside the API: a missing bundle file or the bundle folder is a 404 in the
 * service's shape (not a 405, not text), hashed files are cached for a year as immutable, and
 * the shell, bundle files and /docs are outside the edge limit the API's routes count against.
 */
import { mkdir, mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import Fastify, { type FastifyInstance } from "fastify";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { buildTestApp, type TestApp } from "../testing/helper.ts";
import { outsideEdgeLimit } from "./edge-limit.ts";
import { registerErrorHandler } from "./errors.ts";
import { registerWebApp } from "./web-app.ts";

let dist: string;
let app: FastifyInstance;
let t: TestApp;
beforeAll(async () => {
  dist = (await mkdtemp(join(tmpdir(), "causeway-web-edge-"))) + "/";
  await mkdir(join(dist, "assets", "nested"), { recursive: true });
  await writeFile(join(dist, "index.html"), "<!doctype html><title>causeway</title>");
  await writeFile(join(dist, "assets", "index-abc.js"), "console.log(1)");
  app = Fastify({ routerOptions: { ignoreTrailingSlash: true } });
  registerErrorHandler(app);
  await registerWebApp(app, dist);
  t = await buildTestApp({ CAUSEWAY_EDGE_LIMIT_ENABLED: "true", CAUSEWAY_EDGE_LIMIT: "2" });
}, 120_000);
afterAll(async () => {
  await app?.close();
  await t?.close();
  await rm(dist, { recursive: true, force: true });
});

describe("static files of the web app", () => {
  it.each([
    "/app/assets/index-old.js",
    "/app/assets/",
    "/app/assets",
    "/app/assets/nested",
    "/app/assets/nested/",
  ])("GET %s is a 404 in the service's shape", async (url) => {
    const res = await app.inject({ url });
    expect(res.statusCode).toBe(404);
    expect(res.headers["x-service-error-code"]).toBe("not_found");
    expect(res.json()).toEqual({ detail: "Not found." });
  });

  it("a method the static route does not take is still a 405 with Allow", async () => {
    const res = await app.inject({ method: "DELETE", url: "/app/assets/index-abc.js" });
    expect(res.statusCode).toBe(405);
    expect(res.headers.allow).toContain("GET");
  });

  it("hashed files are cached for a year as immutable; the shell is revalidated", async () => {
    const js = await app.inject({ url: "/app/assets/index-abc.js" });
    expect(js.statusCode).toBe(200);
    expect(js.headers["cache-control"]).toBe("public, max-age=31536000, immutable");
    expect((await app.inject({ url: "/app/" })).headers["cache-control"]).toBe("no-cache");
  });
});

describe("the edge limit", () => {
  it("does not count the web app's shell, bundle files or /docs", async () => {
    const from = "203.0.113.20";
    for (let i = 0; i < 5; i++)
      for (const url of [
        "/",
        "/app/",
        "/app/predictions/x",
        "/app/assets/index-abc.js",
        "/docs/",
        "/docs/json",
      ]) {
        const res = await t.app.inject({ url, remoteAddress: from });
        expect(res.statusCode, url).not.toBe(403);
      }
    expect((await t.app.inject({ url: "/health", remoteAddress: from })).statusCode).toBe(200);
    expect((await t.app.inject({ url: "/health", remoteAddress: from })).statusCode).toBe(200);
    expect((await t.app.inject({ url: "/health", remoteAddress: from })).statusCode).toBe(403);
  });

  it("counts everything else, unknown paths included", () => {
    expect(outsideEdgeLimit(undefined)).toBe(false);
    expect(outsideEdgeLimit("/health")).toBe(false);
    expect(outsideEdgeLimit("/v1/predictions")).toBe(false);
    expect(outsideEdgeLimit("/openapi.json")).toBe(false);
    expect(outsideEdgeLimit("/application")).toBe(false);
    expect(outsideEdgeLimit("/app/assets/*")).toBe(true);
  });
});
