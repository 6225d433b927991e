/**
 * The edge limit (service-spec §8): requests per client address per window on every route,
 * answered 403 with an HTML body and no error-code header, the way an edge proxy blocks. The
 * address is the socket's, or X-Forwarded-For from trusted proxies only (Fastify trustProxy).
 * The internal callback route is exempt: runners are not clients.
 */
import type { FastifyInstance, FastifyReply } from "fastify";
import type { AppContext } from "../context.ts";
import { limitKeys, LimitStoreUnavailable } from "../limits/limit-store.ts";

const BLOCKED_HTML =
  "<!DOCTYPE html>\n<html><head><title>403 Forbidden</title></head>" +
  "<body><h1>403 Forbidden</h1><p>Too many requests from this address. Slow down and retry later.</p></body></html>\n";

/** Counts one request from `address`; false when the address is over its budget (fails open). */
export async function edgeAllows(
  ctx: AppContext,
  address: string,
  log: { warn(obj: object, msg: string): void },
): Promise<boolean> {
  const { edgeEnabled, edgeLimit, edgeWindowSeconds } = ctx.config.limits;
  if (!edgeEnabled) return true;
  const hit = await ctx.limits
    .hit(limitKeys.edge(address), edgeLimit, edgeWindowSeconds * 1000, ctx.now().getTime())
    .catch((err: unknown) => {
      if (!(err instanceof LimitStoreUnavailable)) throw err;
      log.warn({ err }, "edge-limit store unavailable; failing open");
      return { allowed: true, retryAfterSeconds: 0 };
    });
  return hit.allowed;
}

/** The edge block: 403, HTML, no error-code header. */
export function sendEdgeBlock(reply: FastifyReply): FastifyReply {
  return reply.code(403).type("text/html; charset=utf-8").send(BLOCKED_HTML);
}

export function registerEdgeLimit(app: FastifyInstance, ctx: AppContext): void {
  if (!ctx.config.limits.edgeEnabled) return;
  app.addHook("onRequest", async (request, reply) => {
    if (request.url.startsWith("/internal/")) return;
    if (!(await edgeAllows(ctx, request.ip, request.log))) return sendEdgeBlock(reply);
  });
}
