/**
 * /health (service-spec §4.14, no authentication), /livez (the process answers) and /readyz
 * (PostgreSQL answers and the server is not closing; the limit store and object storage are
 * probed and reported, but do not gate it: see READINESS_GATES), and
 * /readyz/models: the start-up model imports (200 when every configured version is in, 503
 * with each version's state and latest progress line while one is importing or failed). The
 * server accepts submissions meanwhile, so /readyz does not wait for the imports.
 */
import type { FastifyInstance } from "fastify";
import type { ZodTypeProvider } from "fastify-type-provider-zod";
import { z } from "zod";
import type { AppContext } from "../context.ts";

const Health = z.object({ status: z.string() }).meta({ id: "HealthResponse" });
const ModelsReady = z
  .object({
    status: z.enum(["ready", "importing", "failed"]),
    versions: z.array(
      z.object({
        version: z.string(),
        scoring: z.string(),
        state: z.enum(["waiting", "importing", "ready", "failed"]),
        message: z.string().nullable(),
      }),
    ),
  })
  .meta({ id: "ModelReadinessResponse" });
const Ready = z
  .object({ status: z.string(), checks: z.record(z.string(), z.string()) })
  .meta({ id: "ReadinessResponse" });

/**
 * The checks that take a replica out of its Service. Every replica shares Redis and object
 * storage, so failing readiness on them would empty the Service at once: reads, runner callbacks
 * and the service's own 503 with its error code (what a client and the error-ratio alert rely
 * on) would all turn into the ingress's bare 503. A replica without PostgreSQL can serve nothing.
 */
const READINESS_GATES = new Set(["database", "server"]);

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
    "/readyz/models",
    {
      // Like /readyz, an operational route outside the contract's OpenAPI (see the API README).
      schema: { hide: true, response: { 200: ModelsReady, 503: ModelsReady } },
    },
    async (_request, reply) => {
      const { ready, versions } = ctx.modelImports?.report() ?? { ready: true, versions: [] };
      const status = ready ? "ready" : versions.some((v) => v.state === "failed") ? "failed" : "importing";
      return reply.code(ready ? 200 : 503).send({ status, versions });
    },
  );
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
      const ready = Object.entries(checks).every(([name, v]) => v === "ok" || !READINESS_GATES.has(name));
      const degraded = Object.values(checks).some((v) => v !== "ok");
      const status = !ready ? "not_ready" : degraded ? "degraded" : "ready";
      return reply.code(ready ? 200 : 503).send({ status, checks });
    },
  );
}
