import { randomBytes } from "node:crypto";
import { gunzipSync, gzipSync } from "node:zlib";
import Fastify, { type FastifyInstance } from "fastify";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { ServedStatus } from "../../services/status/status-documents.ts";
import { SEND_SLICE_BYTES, sendStoredStatus } from "./stored-status-reply.ts";

// Random bytes: a body that is not valid JSON still must arrive byte for byte.
const large = randomBytes(SEND_SLICE_BYTES * 5 + 7);
const small = Buffer.from('{"status":"completed"}');
const served = (body: Buffer): ServedStatus => ({
  etag: '"abc"',
  body,
  gzipped: async () => gzipSync(body),
});

let app: FastifyInstance;
let base: string;
beforeAll(async () => {
  app = Fastify();
  app.get("/large", (request, reply) => sendStoredStatus(request, reply, served(large)));
  app.get("/small", (request, reply) => sendStoredStatus(request, reply, served(small)));
  base = await app.listen({ port: 0, host: "127.0.0.1" });
});
afterAll(() => app.close());

describe("sendStoredStatus", () => {
  it("sends a large body in slices over a real connection, byte for byte, with its length", async () => {
    const res = await fetch(`${base}/large`, { headers: { "accept-encoding": "identity" } });
    expect(res.status).toBe(200);
    expect(res.headers.get("content-length")).toBe(String(large.length));
    expect(res.headers.get("transfer-encoding")).toBeNull();
    expect(res.headers.get("etag")).toBe('"abc"');
    expect(Buffer.from(await res.arrayBuffer()).equals(large)).toBe(true);
  });

  it("sends the gzipped body when asked, and a small body in one piece", async () => {
    const gz = await app.inject({ url: "/large", headers: { "accept-encoding": "gzip" } });
    expect(gz.headers["content-encoding"]).toBe("gzip");
    expect(gunzipSync(gz.rawPayload).equals(large)).toBe(true);
    const one = await app.inject({ url: "/small" });
    expect(one.headers["content-length"]).toBe(String(small.length));
    expect(one.rawPayload.equals(small)).toBe(true);
  });

  it("answers 304 to a matching If-None-Match", async () => {
    const res = await app.inject({ url: "/large", headers: { "if-none-match": '"abc"' } });
    expect(res.statusCode).toBe(304);
    expect(res.rawPayload.length).toBe(0);
  });
});
