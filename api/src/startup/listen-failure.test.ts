import { createServer, type Server } from "node:net";
import { afterAll, describe, expect, it } from "vitest";
import { startMetricsServer } from "../observability/metrics-server.ts";
import { listenEarly } from "./early-listen.ts";
import { listenFailureMessage } from "./listen-failure.ts";

describe("listen failures", () => {
  const held: Server[] = [];
  afterAll(async () => {
    await Promise.all(held.map((s) => new Promise((r) => s.close(r))));
  });
  const occupiedPort = async (): Promise<number> => {
    const s = createServer();
    held.push(s);
    await new Promise<void>((r) => s.listen(0, "127.0.0.1", r));
    return (s.address() as { port: number }).port;
  };

  it("names the API port and its setting when another process holds it", async () => {
    const port = await occupiedPort();
    const err = await listenEarly(port, "127.0.0.1").then(
      () => null,
      (e: unknown) => e,
    );
    expect(listenFailureMessage(err, "API port", { host: "127.0.0.1", port }, "PORT")).toBe(
      `cannot listen: the API port 127.0.0.1:${port} is in use by another process; stop that process or choose another with PORT`,
    );
  });

  it("names the metrics port the same way", async () => {
    const port = await occupiedPort();
    // The listener fails before any request could reach the database.
    const deps = {
      db: { query: () => Promise.reject(new Error("no database in this test")) },
      now: () => new Date(),
      config: { limits: { defaultQuota: 1 } },
    };
    const err = await startMetricsServer(deps, { metrics: { port, host: "127.0.0.1" } }).then(
      () => null,
      (e: unknown) => e,
    );
    expect(
      listenFailureMessage(err, "metrics port", { host: "127.0.0.1", port }, "CAUSEWAY_METRICS_PORT"),
    ).toMatch(/metrics port 127\.0\.0\.1:\d+ is in use by another process; .* CAUSEWAY_METRICS_PORT$/);
  });

  it("leaves other errors to the caller", () => {
    expect(listenFailureMessage(new Error("boom"), "API port", { host: "h", port: 1 }, "PORT")).toBeNull();
  });
});
