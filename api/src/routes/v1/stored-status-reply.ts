/**
 * Sends a stored status body (services/status/status-documents.ts) as bytes: `ETag`, 304 for a
 * matching `If-None-Match`, gzip when the client accepts it. The bytes were validated against
 * the response schema when they were rendered, so the serializer is bypassed. A stored body
 * whose compressed copy is still being made goes out uncompressed rather than waiting for it.
 */
import { Readable } from "node:stream";
import { setImmediate as yieldToEventLoop } from "node:timers/promises";
import type { FastifyReply, FastifyRequest } from "fastify";
import type { ServedStatus } from "../../services/status/status-documents.ts";

/**
 * Bytes handed to the socket per turn of the event loop. One write of a whole 13 MB body is one
 * writev system call, and on a local connection the kernel delivers it to the reader within
 * that call: 20–70 ms during which no other request or runner callback is served. Slices with
 * a turn of the event loop between them bound that stall to well under a millisecond.
 */
export const SEND_SLICE_BYTES = 64 * 1024;

async function* slices(body: Buffer): AsyncGenerator<Buffer> {
  for (let at = 0; at < body.length; at += SEND_SLICE_BYTES) {
    if (at > 0) await yieldToEventLoop();
    yield body.subarray(at, at + SEND_SLICE_BYTES);
  }
}

/** Sends bytes; a large body in slices (SEND_SLICE_BYTES), with its length announced. */
function sendBytes(reply: FastifyReply, body: Buffer): FastifyReply {
  if (body.length <= SEND_SLICE_BYTES) return reply.send(body);
  reply.header("content-length", body.length);
  return reply.send(Readable.from(slices(body), { objectMode: false }));
}

/** Whether an Accept-Encoding header admits gzip (a q=0 entry refuses it). */
export function acceptsGzip(header: string | undefined): boolean {
  if (!header) return false;
  for (const part of header.split(",")) {
    const [coding, ...params] = part.trim().split(";");
    const name = coding?.trim().toLowerCase();
    if (name !== "gzip" && name !== "x-gzip" && name !== "*") continue;
    const q = params.map((p) => p.trim()).find((p) => p.startsWith("q="));
    return q === undefined || Number(q.slice(2)) > 0;
  }
  return false;
}

function matches(ifNoneMatch: string | undefined, etag: string): boolean {
  if (!ifNoneMatch) return false;
  if (ifNoneMatch.trim() === "*") return true;
  return ifNoneMatch.split(",").some((t) => t.trim().replace(/^W\//, "") === etag);
}

export async function sendStoredStatus(
  request: FastifyRequest,
  reply: FastifyReply,
  stored: ServedStatus,
): Promise<FastifyReply> {
  reply.header("etag", stored.etag).header("vary", "accept-encoding");
  if (matches(request.headers["if-none-match"], stored.etag)) return reply.code(304).send();
  reply.type("application/json; charset=utf-8");
  if (acceptsGzip(request.headers["accept-encoding"])) {
    const gzipped = stored.gzippedIfReady ? stored.gzippedIfReady() : await stored.gzipped();
    if (gzipped) return sendBytes(reply.header("content-encoding", "gzip"), gzipped);
  }
  return sendBytes(reply, stored.body);
}
