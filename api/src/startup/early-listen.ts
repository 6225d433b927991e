/**
 * Listen first: the server's port answers within a moment of `npm start`, before the database
 * (a fresh embedded PGlite runs initdb, seconds on an idle machine) and the app are built.
 * Until the app takes over, `/health` and `/livez` answer 200 (the process is up), `/readyz`
 * 503 `starting` (a readiness probe waits for the app, as before), and every other request waits,
 * its body unread, and is handed to the app when it is ready (a submission made the moment
 * /health answers is accepted, not refused). Then every request goes to Fastify's router
 * (`app.routing`, the handler Fastify itself puts on its server), with Fastify's timeouts.
 * Hand-written because Fastify cannot adopt a server that is already listening.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";

type Handler = (req: IncomingMessage, res: ServerResponse) => void;

export interface EarlyServer {
  server: Server;
  /** Hands every later request to the app's router (`app.routing`). */
  serve(handler: Handler, timeouts: { requestTimeoutMs: number; keepAliveTimeoutMs: number }): void;
  close(): Promise<void>;
}

function json(
  res: ServerResponse,
  status: number,
  body: unknown,
  headers: Record<string, string> = {},
): void {
  res.writeHead(status, { "content-type": "application/json; charset=utf-8", ...headers });
  res.end(JSON.stringify(body));
}

/** What the port answers while the app is being built; other requests wait in `held`. */
function starting(held: [IncomingMessage, ServerResponse][]): Handler {
  return (req, res) => {
    const path = (req.url ?? "/").split("?")[0]?.replace(/\/+$/, "") || "/";
    if (req.method === "GET" && (path === "/health" || path === "/livez"))
      return json(res, 200, { status: "ok" });
    if (req.method === "GET" && path === "/readyz")
      return json(res, 503, { status: "not_ready", checks: { server: "starting" } });
    held.push([req, res]);
  };
}

export async function listenEarly(port: number, host: string): Promise<EarlyServer> {
  const held: [IncomingMessage, ServerResponse][] = [];
  let handler: Handler = starting(held);
  const server = createServer((req, res) => handler(req, res));
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(port, host, () => {
      server.off("error", reject);
      resolve();
    });
  });
  return {
    server,
    serve(next, timeouts) {
      server.requestTimeout = timeouts.requestTimeoutMs;
      server.setTimeout(timeouts.requestTimeoutMs);
      server.keepAliveTimeout = timeouts.keepAliveTimeoutMs;
      handler = next;
      for (const [req, res] of held.splice(0)) if (!res.destroyed) next(req, res);
    },
    close() {
      // Requests still held when the app never came up: tell them, rather than leave them hanging.
      for (const [, res] of held.splice(0))
        json(
          res,
          503,
          { detail: "The service is temporarily unavailable; retry later." },
          { "x-service-error-code": "service_unavailable", "retry-after": "5", connection: "close" },
        );
      return new Promise((resolve) => {
        server.close(() => resolve());
        server.closeIdleConnections();
        // Keep-alive connections that finish a response after this point would hold close() for
        // the keep-alive timeout; in-flight requests have had the app's grace period already.
        setTimeout(() => server.closeAllConnections(), 5_000).unref();
      });
    },
  };
}
