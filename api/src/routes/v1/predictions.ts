/** Prediction routes: create, list, status (service-spec §4.1–4.3). */
import type { FastifyInstance } from "fastify";
import type { ZodTypeProvider } from "fastify-type-provider-zod";
import type { AppContext } from "../../context.ts";
import { listPredictions, type PageCursor } from "../../db/jobs.ts";
import { invalid } from "../../errors.ts";
import { ErrorBody, PredictionIdParams, commonErrors } from "../../schemas/common.ts";
import {
  ListQuery,
  PredictResponse,
  PredictionStatusResponse,
  PredictionsListResponse,
  StatusQuery,
} from "../../schemas/predictions.ts";
import { requestJobTrace } from "../../observability/request-tracing.ts";
import { presentPrediction } from "../../services/status/present.ts";
import { predictionStatus } from "../../services/status/prediction-status.ts";
import { sendStoredStatus } from "./stored-status-reply.ts";
import { submitPrediction } from "../../services/submission/submission.ts";
import { IdempotencyHeaders } from "../../schemas/idempotency.ts";
import { clientGoneSignal, idempotentUpload, receiveUpload } from "./prediction-request.ts";

/** Keyset times a cursor may carry: no row is older than 1970 or newer than 9999. */
const CURSOR_MIN_MS = 0;
const CURSOR_MAX_MS = Date.UTC(9999, 11, 31, 23, 59, 59, 999);

/**
 * Opaque page cursor: base64url of 24 bytes, the last row's created_at (ms, int64) and id (16
 * bytes). Every string of the documented shape (ListQuery) decodes to a keyset position, so a
 * client can only get 422 by sending something of another shape.
 */
export function encodeCursor(c: PageCursor): string {
  const buf = Buffer.alloc(24);
  buf.writeBigInt64BE(BigInt(c.createdAt.getTime()), 0);
  Buffer.from(c.id.replace(/-/g, ""), "hex").copy(buf, 8);
  return buf.toString("base64url");
}

export function decodeCursor(raw: string): PageCursor | null {
  const buf = Buffer.from(raw, "base64url");
  if (buf.length !== 24 || buf.toString("base64url") !== raw) return null;
  const ms = Number(buf.readBigInt64BE(0));
  const hex = buf.subarray(8).toString("hex");
  return {
    createdAt: new Date(Math.min(CURSOR_MAX_MS, Math.max(CURSOR_MIN_MS, ms))),
    id: `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`,
  };
}

export function predictionRoutes(app: FastifyInstance, ctx: AppContext): void {
  const r = app.withTypeProvider<ZodTypeProvider>();

  r.post(
    "/v1/predictions",
    {
      schema: {
        summary: "Create a prediction (multipart upload)",
        tags: ["predictions"],
        security: [{ ApiKey: [] }],
        headers: IdempotencyHeaders,
        response: {
          202: PredictResponse,
          403: ErrorBody,
          409: ErrorBody,
          413: ErrorBody,
          429: ErrorBody,
          ...commonErrors,
        },
      },
    },
    async (request, reply) => {
      const limits = ctx.config.uploads;
      const { fingerprint, idempotency } = idempotentUpload(
        request,
        request.headers["idempotency-key"],
        limits,
      );
      const accepted = await submitPrediction(ctx, {
        account: request.account!,
        receive: (dir) => receiveUpload(request, dir, limits, fingerprint),
        signal: clientGoneSignal(reply),
        trace: requestJobTrace(request),
        log: request.log,
        idempotency,
      });
      // The client went away: nothing to answer, and the submission has released what it held.
      if (!accepted) return reply;
      if (accepted.replayed) reply.header("idempotent-replayed", "true");
      return reply.code(202).send(accepted.body);
    },
  );

  r.get(
    "/v1/predictions",
    {
      schema: {
        summary: "List the caller's predictions, newest first",
        tags: ["predictions"],
        security: [{ ApiKey: [] }],
        querystring: ListQuery,
        response: { 200: PredictionsListResponse, ...commonErrors },
      },
    },
    async (request) => {
      const account = request.account!;
      let after: PageCursor | null = null;
      if (request.query.cursor !== undefined) {
        after = decodeCursor(request.query.cursor);
        if (!after) throw invalid(["query", "cursor"], "invalid cursor", "value_error");
      }
      const page = await listPredictions(ctx.db, account.id, request.query.limit, after);
      const predictions = await Promise.all(
        page.rows.map((p) =>
          presentPrediction(p, account, ctx.store, ctx.config.presignTtlSeconds, {
            maxRows: 0,
            maxSourceInfluenceRows: 0,
            maxColumns: 0,
            withResults: false,
          }),
        ),
      );
      return { predictions, next_cursor: page.next ? encodeCursor(page.next) : null };
    },
  );

  r.get(
    "/v1/predictions/:prediction_id",
    {
      schema: {
        summary: "Status and results of a prediction",
        tags: ["predictions"],
        security: [{ ApiKey: [] }],
        params: PredictionIdParams,
        querystring: StatusQuery,
        // 429: more large previews running and waiting for the account than its share (Retry-After).
        response: { 200: PredictionStatusResponse, 404: ErrorBody, 429: ErrorBody, ...commonErrors },
      },
    },
    async (request, reply) => {
      const r = await predictionStatus(ctx, request.account!, request.params.prediction_id, request.query);
      return "stored" in r ? sendStoredStatus(request, reply, r.stored) : r.record;
    },
  );
}
