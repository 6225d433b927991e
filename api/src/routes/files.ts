/**
 * Downloads of the filesystem store (embedded mode): `/files/<token>`, where the token is a
 * sealed, expiring grant (storage/download-tokens.ts). Invalid, expired and unknown tokens
 * are the same 404. Not part of the public contract's route list, so hidden from OpenAPI.
 */
import type { FastifyInstance } from "fastify";
import { mediaTypeOf } from "@causeway/contract";
import { FsObjectStore } from "@causeway/runner/storage";
import type { AppContext } from "../context.ts";
import { NotFound } from "../errors.ts";

export function fileRoutes(app: FastifyInstance, ctx: AppContext): void {
  const store = ctx.store;
  if (!(store instanceof FsObjectStore)) return;
  app.get<{ Params: { token: string } }>(
    "/files/:token",
    { schema: { hide: true } },
    async (request, reply) => {
      const grant = ctx.tokens.open(request.params.token, ctx.now().getTime());
      if (!grant || !(await store.exists(grant.key))) throw new NotFound();
      const safeName = grant.filename.replace(/[^A-Za-z0-9._-]/g, "_");
      return reply
        .type(mediaTypeOf(safeName))
        .header("content-disposition", `attachment; filename="${safeName}"`)
        .header("cache-control", "private, no-store")
        .send(store.createReadStream(grant.key));
    },
  );
}
