import type { AddressInfo } from "node:net";
import { afterEach, describe, expect, it } from "vitest";
import { listenEarly, type EarlyServer } from "./early-listen.ts";

let early: EarlyServer | undefined;
afterEach(async () => {
  await early?.close();
  early = undefined;
});

const url = (e: EarlyServer, path: string) =>
  `http://127.0.0.1:${(e.server.address() as AddressInfo).port}${path}`;

describe("listenEarly", () => {
  it("answers /health at once, holds other requests with their bodies, and hands them to the app", async () => {
    early = await listenEarly(0, "127.0.0.1");
    const e = early;
    const health = await fetch(url(e, "/health"));
    expect(health.status).toBe(200);
    expect(await health.json()).toEqual({ status: "ok" });
    expect((await fetch(url(e, "/readyz"))).status).toBe(503);

    // A submission while the app is being built: it waits instead of being refused.
    const held = fetch(url(e, "/v1/predictions"), { method: "POST", body: "form-bytes" });
    await new Promise((r) => setTimeout(r, 100));
    e.serve(
      (req, res) => {
        let body = "";
        req.on("data", (c: Buffer) => (body += c.toString()));
        req.on("end", () => {
          res.writeHead(202, { "content-type": "application/json" });
          res.end(JSON.stringify({ path: req.url, body }));
        });
      },
      { requestTimeoutMs: 10_000, keepAliveTimeoutMs: 5_000 },
    );
    const answered = await held;
    expect(answered.status).toBe(202);
    expect(await answered.json()).toEqual({ path: "/v1/predictions", body: "form-bytes" });
    // Later requests, /health included, go to the app.
    expect((await fetch(url(e, "/health"))).status).toBe(202);
  });

  it("answers requests still held at close with the service's 503", async () => {
    early = await listenEarly(0, "127.0.0.1");
    const e = early;
    const held = fetch(url(e, "/v1/quota"));
    // Long enough for the request to be read and held on a loaded machine.
    await new Promise((r) => setTimeout(r, 1000));
    const closing = e.close();
    const res = await held;
    expect(res.status).toBe(503);
    expect(res.headers.get("x-service-error-code")).toBe("service_unavailable");
    expect(await res.json()).toEqual({ detail: "The service is temporarily unavailable; retry later." });
    await closing;
    early = undefined;
  });
});
