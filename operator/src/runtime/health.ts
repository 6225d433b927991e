/**
 * Health, readiness and metrics over plain node:http. /healthz fails when a watch has gone
 * stale or a key has waited in the queue too long (after argo's healthz), so the kubelet
 * restarts a wedged operator; /readyz fails while starting or shutting down.
 */
import { createServer, type Server } from "node:http";
import type { Registry } from "prom-client";

export interface HealthProbe {
  /** Null when healthy, else why not. */
  unhealthy(): string | null;
  /** Null when ready, else why not. */
  notReady(): string | null;
}

/** Starts the server; resolves once it listens. */
export async function startHealthServer(
  port: number,
  probe: HealthProbe,
  registry: Registry,
  host = "0.0.0.0",
): Promise<Server> {
  const server = createServer((req, res) => {
    const path = (req.url ?? "/").split("?")[0];
    const answer = (problem: string | null) => {
      res.writeHead(problem ? 503 : 200, { "content-type": "text/plain" });
      res.end(problem ?? "ok");
    };
    if (path === "/healthz" || path === "/livez") return answer(probe.unhealthy());
    if (path === "/readyz") return answer(probe.notReady());
    if (path === "/metrics") {
      registry
        .metrics()
        .then((text) => {
          res.writeHead(200, { "content-type": registry.contentType });
          res.end(text);
        })
        .catch(() => {
          res.writeHead(500);
          res.end();
        });
      return;
    }
    res.writeHead(404);
    res.end();
  });
  server.keepAliveTimeout = 5_000;
  await new Promise<void>((resolve) => server.listen(port, host, resolve));
  return server;
}
