/**
 * The edge limit (service-spec §8): requests per client address per window, answered 403 with
 * an HTML body and no error-code header, the way an edge proxy blocks. The address is the
 * socket's, or X-Forwarded-For from trusted proxies only (Fastify trustProxy), in one canonical
 * spelling (client-address.ts), so the spellings of one address share one bucket.
 *
 * Outside it: the runners' callback route (runners are not clients; it has its own per-address
 * limit), and the web app's shell, bundle files and the API docs, which a browser fetches many
 * at once on a first visit and then from its cache; counting them spent a polling user's budget.
 * Every other path counts, unknown ones under /internal/ included.
 */
import type { FastifyInstance, FastifyReply, FastifyRequest } from "fastify";
import type { AppContext } from "../context.ts";
import { limitKeys, LimitStoreUnavailable } from "../limits/limit-store.ts";
import { clientAddress } from "./client-address.ts";

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

/** Whether a matched route pattern is outside the edge limit (an unmatched path never is). */
export function outsideEdgeLimit(routeUrl: string | undefined): boolean {
  if (routeUrl === undefined) return false;
  return (
    routeUrl === "/" ||
    routeUrl === "/app" ||
    routeUrl.startsWith("/app/") ||
    routeUrl === "/docs" ||
    routeUrl.startsWith("/docs/") ||
    routeUrl.startsWith("/internal/")
  );
}

/** Counts `request` against its address's edge budget; false when it is over. */
export function edgeAllowsRequest(ctx: AppContext, request: FastifyRequest): Promise<boolean> {
  return edgeAllows(ctx, clientAddress(request), request.log);
}

export function registerEdgeLimit(app: FastifyInstance, ctx: AppContext): void {
  if (!ctx.config.limits.edgeEnabled) return;
  app.addHook("onRequest", async (request, reply) => {
    // The matched route's pattern, not the URL: /internal/anything-else is counted.
    if (outsideEdgeLimit(request.is404 ? undefined : request.routeOptions.url)) return;
    if (!(await edgeAllowsRequest(ctx, request))) return sendEdgeBlock(reply);
  });
}
