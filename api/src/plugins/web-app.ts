/**
 * The web app (api/web, built by Vite into api/web/dist): `/` redirects to `/app/`; hashed
 * bundle files are served from `/app/assets/` with a year-long immutable cache (their names
 * change with their content, so a browser fetches them once); every other `/app/...` path is
 * the app's page (client-side routes such as /app/predictions/{id}), never cached. No data
 * is served here: the page calls the /v1 routes with the key the user signed in with.
 */
import { existsSync, readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import fastifyStatic from "@fastify/static";
import type { FastifyError, FastifyInstance, FastifyReply } from "fastify";
import { NotFound } from "../errors.ts";

/** Where `npm run build -w @causeway/web` writes the app. */
export const WEB_DIST = fileURLToPath(new URL("../../web/dist/", import.meta.url));

const NOT_BUILT =
  "The causeway web app is not built. Run `npm run build -w @causeway/web` (npm start does it when needed).\n";

export async function registerWebApp(app: FastifyInstance, dist: string = WEB_DIST): Promise<void> {
  const hidden = { schema: { hide: true } };
  app.get("/", hidden, async (_request, reply) => reply.redirect("/app/", 302));
  const indexPath = `${dist}index.html`;
  const index = existsSync(indexPath) ? readFileSync(indexPath) : null;
  const page = (reply: FastifyReply) =>
    index
      ? reply.type("text/html; charset=utf-8").header("cache-control", "no-cache").send(index)
      : reply.code(503).type("text/plain; charset=utf-8").send(NOT_BUILT);
  if (existsSync(`${dist}assets`)) {
    await app.register(async (scope) => {
      // A folder under the prefix is refused by the static plugin with a 403: it is a 404 like
      // a missing file (the app's error handler answers both in the service's shape).
      scope.setErrorHandler((error: FastifyError) => {
        throw error.statusCode === 403 ? new NotFound() : error;
      });
      await scope.register(fastifyStatic, {
        root: `${dist}assets`,
        prefix: "/app/assets/",
        decorateReply: false,
        index: false,
        list: false,
        dotfiles: "deny",
        immutable: true,
        // The build writes .br and .gz twins (api/web/build.ts): ~0.27 MB instead of ~0.86 MB.
        preCompressed: true,
        maxAge: "365d",
        schemaHide: true,
      });
    });
  }
  // The router ignores trailing slashes: this is /app too.
  app.get("/app/", hidden, async (_request, reply) => page(reply));
  app.get("/app/*", hidden, async (request, reply) => {
    // A missing bundle file (a stale tab asking for an old hash) or the folder itself is a 404
    // in the service's shape, not the page.
    if (request.url === "/app/assets" || request.url.startsWith("/app/assets/")) throw new NotFound();
    return page(reply);
  });
}
