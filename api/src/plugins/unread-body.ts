/**
 * A request refused before its body was read because of who sent it (401: no valid key) or of
 * its declared size (413) closes the connection instead of keeping it: Node would otherwise read
 * and discard the rest of the body to reuse the connection, so an unauthenticated client could
 * keep the server receiving a 100 MB upload it had already refused. With `Connection: close` the
 * server stops reading once the answer is written.
 *
 * Not for an account's own limits (429): the client is known and bounded by the upload caps, and
 * a client still sending when the socket closes sees a broken pipe instead of the 429 and its
 * Retry-After, which it needs to back off.
 */
import type { IncomingMessage } from "node:http";
import type { FastifyInstance } from "fastify";

/** Below this, reading the rest of a refused body costs less than a new connection. */
export const DRAIN_LIMIT_BYTES = 64 * 1024;

/** The refusals after which the rest of a large body is not read. */
const CLOSE_ON = new Set([401, 413]);

/** Whether a request declared a body, large or of unknown length, that has not arrived in full. */
export function hasUnreadBody(raw: IncomingMessage): boolean {
  if (raw.complete) return false;
  const length = Number(raw.headers["content-length"] ?? 0);
  return length > DRAIN_LIMIT_BYTES || raw.headers["transfer-encoding"] !== undefined;
}

export function registerUnreadBodyClose(app: FastifyInstance): void {
  app.addHook("onSend", async (request, reply, payload) => {
    if (CLOSE_ON.has(reply.statusCode) && hasUnreadBody(request.raw)) reply.header("connection", "close");
    return payload;
  });
}
