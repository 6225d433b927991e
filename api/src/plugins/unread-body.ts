/**
 * A refusal sent before the request body was read (a 401 for a missing key, a 429, a 413 on a
 * declared length) closes the connection instead of keeping it: Node would otherwise read and
 * discard the rest of the body to reuse the connection, so an unauthenticated client could keep
 * the server receiving a 100 MB upload it had already refused. With `Connection: close` the
 * server stops reading once the answer is written.
 */
import type { IncomingMessage } from "node:http";
import type { FastifyInstance } from "fastify";

/** Below this, reading the rest of a refused body costs less than a new connection. */
export const DRAIN_LIMIT_BYTES = 64 * 1024;

/** Whether a request declared a body, large or of unknown length, that has not arrived in full. */
export function hasUnreadBody(raw: IncomingMessage): boolean {
  if (raw.complete) return false;
  const length = Number(raw.headers["content-length"] ?? 0);
  return length > DRAIN_LIMIT_BYTES || raw.headers["transfer-encoding"] !== undefined;
}

export function registerUnreadBodyClose(app: FastifyInstance): void {
  app.addHook("onSend", async (request, reply, payload) => {
    if (reply.statusCode >= 400 && hasUnreadBody(request.raw)) reply.header("connection", "close");
    return payload;
  });
}
