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

describe("an unauthenticated large upload", () => {
  it("is answered 401 and the connection is closed while the client is still sending", async () => {
    const declared = 100 * 1024 * 1024;
    const chunk = Buffer.alloc(64 * 1024, 0x61);
    const result = await new Promise<{ head: string; sent: number }>((resolve, reject) => {
      const socket = connect(port, "127.0.0.1");
      let data = "";
      let sent = 0;
      let closed = false;
      socket.on("data", (d: Buffer) => (data += d.toString("latin1")));
      socket.on("error", () => undefined); // a reset while writing is an expected outcome
      socket.on("close", () => {
        closed = true;
        resolve({ head: data.split("\r\n\r\n")[0] ?? "", sent });
      });
      socket.write(
        "POST /v1/predictions HTTP/1.1\r\nHost: x\r\n" +
          "Content-Type: multipart/form-data; boundary=b\r\n" +
          `Content-Length: ${declared}\r\n\r\n`,
      );
      const pump = () => {
        while (!closed && sent < declared) {
          sent += chunk.length;
          if (!socket.write(chunk)) return void socket.once("drain", pump);
        }
      };
      pump();
      setTimeout(() => reject(new Error(`still open after sending ${sent} bytes`)), 20_000).unref();
    });
    expect(result.head).toMatch(/^HTTP\/1\.1 401 /);
    expect(result.head.toLowerCase()).toContain("connection: close");
    expect(result.sent).toBeLessThan(declared);
  });

  it("a refused small body that has arrived keeps the connection", async () => {
    const res = await t.app.inject({ method: "POST", url: "/v1/causal-analysis", payload: { x: 1 } });
    expect(res.statusCode).toBe(401);
    expect(res.headers.connection).not.toBe("close");
  });

  it("an account's own limit (429) reads the body, so a client still sending gets the answer", async () => {
    const { key } = await t.account("external", 0);
    const body = Buffer.alloc(1024 * 1024, 0x61);
    const head = await new Promise<string>((resolve, reject) => {
      const socket = connect(port, "127.0.0.1");
      let data = "";
      socket.on("data", (d: Buffer) => {
        data += d.toString("latin1");
        if (data.includes("\r\n\r\n")) {
          resolve(data.split("\r\n\r\n")[0]!);
          socket.destroy();
        }
      });
      socket.on("error", reject);
      socket.write(
        "POST /v1/predictions HTTP/1.1\r\nHost: x\r\n" +
          `X-API-Key: ${key}\r\nContent-Type: multipart/form-data; boundary=b\r\n` +
          `Content-Length: ${body.length}\r\n\r\n`,
      );
      socket.write(body);
      setTimeout(() => reject(new Error("no answer")), 20_000).unref();
    });
    expect(head).toMatch(/^HTTP\/1\.1 429 /);
    expect(head.toLowerCase()).not.toContain("connection: close");
  });
});
