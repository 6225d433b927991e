/**
 * The runner's status callback: POST /internal/v1/jobs/:kind/:job_id/callback. Served on the
 * main port but outside the public contract (hidden from OpenAPI, exempt from the edge limit);
 * in a cluster, ingress must not route /internal/ (the chart's NetworkPolicy admits runner
 * pods only). Authenticated with the per-job HMAC key derived from the server secret
 * (contract verifyCallback over `timestamp.rawBody`, ±300 s); the raw body is verified before
 * it is parsed. Forged and stale callbacks are 401 and write nothing. Exempt from the edge
 * limit, it has its own: `CAUSEWAY_CALLBACK_RATE_LIMIT` requests per minute per client address
 * (429 rate_limited + Retry-After), counted before the signature is checked, so a flood of
 * forged callbacks costs one counter each. A job reports a few dozen times at most.
 */
import type { FastifyInstance } from "fastify";
import { z } from "zod";
import {
  CALLBACK_HEADERS,
  CALLBACK_ROUTE,
  RunnerCallback,
  deriveCallbackKey,
  verifyCallback,
} from "@causeway/contract";
import type { AppContext } from "../../context.ts";
import {
  CallbackUnauthorized,
  NotFound,
  RateLimited,
  RequestValidationError,
  zodItems,
} from "../../errors.ts";
import { limitKeys, LimitStoreUnavailable } from "../../limits/limit-store.ts";
import { recordCallback } from "../../observability/metrics.ts";
import { clientAddress } from "../../plugins/client-address.ts";

const Params = z.object({ kind: z.enum(["prediction", "causal_analysis"]), job_id: z.uuid() });

export async function callbackRoutes(app: FastifyInstance, ctx: AppContext): Promise<void> {
  await app.register(async (scope) => {
    // The signature covers the exact bytes sent: keep the body as a string.
    scope.addContentTypeParser(
      "application/json",
      { parseAs: "string", bodyLimit: 1024 * 1024 },
      (_req, body, done) => {
        done(null, body);
      },
    );
    scope.addHook("onRequest", async (request, reply) => {
      const hit = await ctx.limits
        .hit(
          limitKeys.callback(clientAddress(request)),
          ctx.config.limits.callbackRateLimit,
          60_000,
          ctx.now().getTime(),
        )
        .catch((err: unknown) => {
          if (!(err instanceof LimitStoreUnavailable)) throw err;
          return { allowed: true, retryAfterSeconds: 0 }; // fails open like the other rate limits
        });
      if (!hit.allowed) {
        const err = new RateLimited();
        return reply
          .code(429)
          .header("x-service-error-code", "rate_limited")
          .header("retry-after", String(hit.retryAfterSeconds))
          .send({ detail: err.message });
      }
    });
    scope.post<{ Params: { kind: string; job_id: string }; Body: string }>(
      CALLBACK_ROUTE,
      { schema: { hide: true } },
      async (request, reply) => {
        const params = Params.safeParse(request.params);
        if (!params.success) throw new NotFound();
        const raw = typeof request.body === "string" ? request.body : "";
        const ts = Number(request.headers[CALLBACK_HEADERS.timestamp]);
        const sig = request.headers[CALLBACK_HEADERS.signature];
        const key = deriveCallbackKey(ctx.callbackSecret, params.data.job_id);
        const verdict = verifyCallback(
          key,
          ts,
          raw,
          typeof sig === "string" ? sig : "",
          Math.floor(ctx.now().getTime() / 1000),
        );
        if (verdict !== "ok") {
          request.log.warn(
            { verdict, kind: params.data.kind, job_id: params.data.job_id },
            "callback rejected",
          );
          throw new CallbackUnauthorized();
        }
        let json: unknown;
        try {
          json = JSON.parse(raw);
        } catch {
          throw new RequestValidationError([
            { loc: ["body"], msg: "JSON decode error", type: "json_invalid" },
          ]);
        }
        const parsed = RunnerCallback.safeParse(json);
        if (!parsed.success) throw new RequestValidationError(zodItems(parsed.error.issues, ["body"]));
        const cb = parsed.data;
        // A key signs for one job id; the body must speak about that job and kind.
        if (cb.job_id !== params.data.job_id || cb.kind !== params.data.kind)
          throw new CallbackUnauthorized();
        const result = await ctx.jobs.applyCallback(cb);
        if (!result.found) throw new NotFound();
        recordCallback(cb, result.applied);
        return reply.code(200).send({ applied: result.applied });
      },
    );
  });
}
