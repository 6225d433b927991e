/**
 * Security headers on every response: `X-Content-Type-Options: nosniff`, framing refused
 * (`X-Frame-Options: DENY` and CSP `frame-ancestors 'none'`), no referrer, and a
 * Content-Security-Policy per kind of response. The web app and /docs get a strict policy:
 * scripts, styles and fonts from this origin only (/docs: inline styles too), no inline script,
 * no eval; everything else
 * (JSON, downloads, errors) gets `default-src 'none'`. No CORS headers are ever sent, so other
 * origins cannot read answers.
 *
 * Hand-written rather than @fastify/helmet: helmet sets one policy for the whole instance and
 * the pages here are served by two plugins (@fastify/static, @fastify/swagger-ui) whose routes
 * cannot carry a per-route helmet config; one onSend hook choosing by path is shorter.
 */
import type { FastifyInstance } from "fastify";

/**
 * The strict policy of the pages. `inlineStyles` only for Swagger UI (/docs): its bundle writes
 * its own `<style>` element and a style attribute at run time, which no hash can name. Styles
 * cannot run code, and scripts stay this origin's only, so the docs page keeps the XSS guard.
 */
export function pagePolicy(connectSources: readonly string[], o: { inlineStyles?: boolean } = {}): string {
  return [
    "default-src 'self'",
    "script-src 'self'",
    o.inlineStyles ? "style-src 'self' 'unsafe-inline'" : "style-src 'self'",
    // Graph exports and the PNG fallback are blob: and data: images made by the page itself.
    "img-src 'self' data: blob:",
    "font-src 'self'",
    `connect-src ${["'self'", ...connectSources].join(" ")}`,
    "object-src 'none'",
    "base-uri 'none'",
    "form-action 'self'",
    "frame-ancestors 'none'",
  ].join("; ");
}

const DATA_POLICY = "default-src 'none'; frame-ancestors 'none'; sandbox";

const isApp = (url: string): boolean => url === "/app" || url.startsWith("/app/");
const isDocs = (url: string): boolean =>
  url === "/docs" || url.startsWith("/docs/") || url.startsWith("/docs?");

/**
 * Adds the headers to every response of `app`. `connectSources` are origins the pages may fetch
 * from besides this one (the S3 endpoint that serves artifact links, when there is one).
 */
export function registerSecurityHeaders(app: FastifyInstance, connectSources: readonly string[] = []): void {
  const page = pagePolicy(connectSources);
  const docs = pagePolicy(connectSources, { inlineStyles: true });
  app.addHook("onSend", async (request, reply, payload) => {
    reply.header("x-content-type-options", "nosniff");
    reply.header("x-frame-options", "DENY");
    reply.header("referrer-policy", "no-referrer");
    reply.header("cross-origin-opener-policy", "same-origin");
    reply.header(
      "content-security-policy",
      isApp(request.url) ? page : isDocs(request.url) ? docs : DATA_POLICY,
    );
    return payload;
  });
}
