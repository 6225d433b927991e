/** Prediction routes: create, list, status (service-spec §4.1–4.3). */
import type { FastifyInstance } from "fastify";
import type { ZodTypeProvider } from "fastify-type-provider-zod";
import { z } from "zod";
import type { AppContext } from "../../context.ts";
import { getPrediction, listPredictions, type PageCursor } from "../../db/jobs.ts";
import { NotFound, invalid } from "../../errors.ts";
import { ErrorBody, PredictionIdParams, commonErrors } from "../../schemas/common.ts";
import {
  ListQuery,
  PredictResponse,
  PredictionStatusResponse,
  PredictionsListResponse,
  StatusQuery,
} from "../../schemas/predictions.ts";
import { presentPrediction } from "../../services/present.ts";
import { isDefaultStatusQuery } from "../../services/status-documents.ts";
import { sendStoredStatus } from "./stored-status-reply.ts";
import { submitPrediction } from "../../services/submission.ts";

const STATUS_DEFAULTS = StatusQuery.parse({});

const Cursor = z.object({ t: z.number().int(), i: z.uuid() });

/** Opaque page cursor: base64url of the last row's (created_at, id). */
export function encodeCursor(c: PageCursor): string {
  return Buffer.from(JSON.stringify({ t: c.createdAt.getTime(), i: c.id })).toString("base64url");
}

export function decodeCursor(raw: string): PageCursor | null {
  try {
    const c = Cursor.parse(JSON.parse(Buffer.from(raw, "base64url").toString("utf8")));
    return { createdAt: new Date(c.t), id: c.i };
  } catch {
    return null;
  }
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
        response: { 202: PredictResponse, 403: ErrorBody, 413: ErrorBody, 429: ErrorBody, ...commonErrors },
      },
    },
    async (request, reply) => submitPrediction(ctx, request, reply),
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
        response: { 200: PredictionStatusResponse, 404: ErrorBody, ...commonErrors },
      },
    },
    async (request, reply) => {
      const account = request.account!;
      const p = await getPrediction(ctx.db, account.id, request.params.prediction_id);
      if (!p) throw new NotFound();
      const q = request.query;
      if (p.status === "completed" && isDefaultStatusQuery(q, STATUS_DEFAULTS)) {
        const stored = await ctx.statusDocuments.serve(p, account);
        if (stored) return sendStoredStatus(request, reply, stored);
      }
      return presentPrediction(p, account, ctx.store, ctx.config.presignTtlSeconds, {
        maxRows: q.max_rows,
        maxSourceInfluenceRows: q.max_source_influence_rows,
        maxColumns: q.max_columns,
        target: q.target,
        withResults: true,
        links: (files) => ctx.statusDocuments.signedLinks(p.id, files),
      });
    },
  );
}
