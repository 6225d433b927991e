import { connect } from "node:net";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { buildTestApp, type TestApp } from "../testing/helper.ts";

let t: TestApp;
let port: number;
beforeAll(async () => {
  t = await buildTestApp();
  await t.app.listen({ port: 0, host: "127.0.0.1" });
  port = (t.app.server.address() as AddressInfo).port;
}, 120_000);
afterAll(async () => t.close());

/** Sends raw bytes and reads until the server closes the connection. */
function raw(request: string): Promise<{ status: number; headers: Record<string, string>; body: string }> {
  return new Promise((resolve, reject) => {
    const socket = connect(port, "127.0.0.1");
    let data = "";
    socket.on("data", (d: Buffer) => (data += d.toString("latin1")));
    socket.on("error", reject);
    socket.on("close", () => {
      const [head = "", body = ""] = data.split("\r\n\r\n");
      const [statusLine = "", ...lines] = head.split("\r\n");
      const headers = Object.fromEntries(
        lines.map((l) => [l.slice(0, l.indexOf(":")).toLowerCase(), l.slice(l.indexOf(":") + 1).trim()]),
      );
      resolve({ status: Number(statusLine.split(" ")[1]), headers, body });
    });
    socket.end(request);
  });
}

describe("requests Node's HTTP parser refuses get the service's error body", () => {
  it.each([
    ["a NUL in a header value", "GET /health HTTP/1.1\r\nHost: x\r\nX-A: a\u0000b\r\n\r\n"],
    ["a CR inside a header value", "GET /health HTTP/1.1\r\nHost: x\r\nX-A: a\rb\r\n\r\n"],
    ["an obs-fold continuation line", "GET /health HTTP/1.1\r\nHost: x\r\nX-A: a\r\n b\r\n\r\n"],
    ["a NUL in a header name", "GET /health HTTP/1.1\r\nHost: x\r\nX-\u0000A: a\r\n\r\n"],
  ])("%s: 400 bad_request", async (_, request) => {
    const res = await raw(request);
    expect(res.status).toBe(400);
    expect(res.headers["x-service-error-code"]).toBe("bad_request");
    expect(res.headers["content-type"]).toBe("application/json; charset=utf-8");
    expect(JSON.parse(res.body)).toEqual({ detail: expect.stringContaining("not valid HTTP") });
  });

  it("a 20,000-character header: 431 in the same shape", async () => {
    const res = await raw(`GET /health HTTP/1.1\r\nHost: x\r\nX-Key: ${"k".repeat(20_000)}\r\n\r\n`);
    expect(res.status).toBe(431);
    expect(res.headers["x-service-error-code"]).toBe("request_header_fields_too_large");
    expect(JSON.parse(res.body)).toEqual({ detail: "The request headers are too large." });
  });

  it("a valid request on the same server is answered as usual", async () => {
    const res = await raw("GET /health HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n");
    expect(res.status).toBe(200);
  });
});
