/**
 * The edge limit (service-spec §8): requests per client address per window on every route,
 * answered 403 with an HTML body and no error-code header, the way an edge proxy blocks. The
 * address is the socket's, or X-Forwarded-For from trusted proxies only (Fastify trustProxy).
 * The internal callback route is exempt: runners are not clients.
 */
import type { FastifyInstance } from "fastify";
import type { AppContext } from "../context.ts";
import { limitKeys, LimitStoreUnavailable } from "../limits/limit-store.ts";

const BLOCKED_HTML =
  "<!DOCTYPE html>\n<html><head><title>403 Forbidden</title></head>" +
  "<body><h1>403 Forbidden</h1><p>Too many requests from this address. Slow down and retry later.</p></body></html>\n";

export function registerEdgeLimit(app: FastifyInstance, ctx: AppContext): void {
  const { edgeEnabled, edgeLimit, edgeWindowSeconds } = ctx.config.limits;
  if (!edgeEnabled) return;
  app.addHook("onRequest", async (request, reply) => {
    if (request.url.startsWith("/internal/")) return;
    const hit = await ctx.limits
      .hit(limitKeys.edge(request.ip), edgeLimit, edgeWindowSeconds * 1000, ctx.now().getTime())
      .catch((err: unknown) => {
        if (!(err instanceof LimitStoreUnavailable)) throw err;
        request.log.warn({ err }, "edge-limit store unavailable; failing open");
        return { allowed: true, retryAfterSeconds: 0 };
      });
    if (!hit.allowed) {
      return reply.code(403).type("text/html; charset=utf-8").send(BLOCKED_HTML);
    }
  });
}
