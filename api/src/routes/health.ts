/**
 * /health (service-spec §4.14, no authentication), /livez (the process answers) and /readyz
 * (PostgreSQL, the limit store and object storage answer, and the server is not closing).
 */
import type { FastifyInstance } from "fastify";
import type { ZodTypeProvider } from "fastify-type-provider-zod";
import { z } from "zod";
import type { AppContext } from "../context.ts";

const Health = z.object({ status: z.string() }).meta({ id: "HealthResponse" });
const Ready = z
  .object({ status: z.string(), checks: z.record(z.string(), z.string()) })
  .meta({ id: "ReadinessResponse" });

export function healthRoutes(app: FastifyInstance, ctx: AppContext, state: { closing: boolean }): void {
  const r = app.withTypeProvider<ZodTypeProvider>();
  r.get(
    "/health",
    { schema: { summary: "Connectivity check", tags: ["health"], response: { 200: Health } } },
    async () => ({
      status: "ok",
    }),
  );
  r.get("/livez", { schema: { hide: true } }, async () => ({ status: "ok" }));
  r.get(
    "/readyz",
    { schema: { hide: true, response: { 200: Ready, 503: Ready } } },
    async (_request, reply) => {
      const checks: Record<string, string> = {};
      const probe = async (name: string, fn: () => Promise<void>) => {
        try {
          await Promise.race([
            fn(),
            new Promise((_, reject) => setTimeout(() => reject(new Error("timeout")), 2000).unref()),
          ]);
          checks[name] = "ok";
        } catch {
          checks[name] = "unavailable";
        }
      };
      await Promise.all([
        probe("database", () => ctx.db.ping()),
        probe("limits", () => ctx.limits.ping()),
        probe("storage", () => ctx.store.ping()),
      ]);
      if (state.closing) checks.server = "closing";
      const ok = Object.values(checks).every((v) => v === "ok");
      return reply.code(ok ? 200 : 503).send({ status: ok ? "ready" : "not_ready", checks });
    },
  );
}
