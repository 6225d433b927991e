/** GET /v1/usage/predictions/quota (service-spec §4.13). */
import type { FastifyInstance } from "fastify";
import type { ZodTypeProvider } from "fastify-type-provider-zod";
import type { AppContext } from "../../context.ts";
import { getQuota } from "../../db/accounts.ts";
import { cachedQuota } from "../../db/quota-cache.ts";
import { QuotaResponse } from "../../schemas/causal.ts";
import { commonErrors } from "../../schemas/common.ts";

export function quotaRoutes(app: FastifyInstance, ctx: AppContext): void {
  app.withTypeProvider<ZodTypeProvider>().get(
    "/v1/usage/predictions/quota",
    {
      schema: {
        summary: "Lifetime prediction quota of the caller's account",
        tags: ["usage"],
        security: [{ ApiKey: [] }],
        response: { 200: QuotaResponse, ...commonErrors },
      },
    },
    async (request) => {
      const read = () => getQuota(ctx.db, request.account!.id, ctx.config.limits.defaultQuota);
      // Embedded mode only: every quota writer is in this process (db/quota-cache.ts).
      return ctx.config.database.kind === "embedded"
        ? cachedQuota(ctx.db, request.account!.id, read)
        : read();
    },
  );
}
