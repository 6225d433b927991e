/**
 * Sends a stored status body (services/status-documents.ts) as bytes: `ETag`, 304 for a
 * matching `If-None-Match`, gzip when the client accepts it. The bytes were validated against
 * the response schema when they were rendered, so the serializer is bypassed.
 */
import type { FastifyReply, FastifyRequest } from "fastify";
import type { ServedStatus } from "../../services/status-documents.ts";

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
    return reply.header("content-encoding", "gzip").send(await stored.gzipped());
  }
  return reply.send(stored.body);
}
