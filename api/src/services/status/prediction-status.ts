/**
 * A prediction's status record for GET /v1/predictions/{id}, with the policy of where its body
 * comes from: a completed prediction at the default sizes is the stored body; large non-default
 * previews are built off the event loop (the status-body worker, an accounted heavy read); small
 * previews and unfinished jobs are presented inline from ranged reads.
 */
import type { z } from "zod";
import type { AppContext } from "../../context.ts";
import type { Account } from "../../db/accounts.ts";
import { getPrediction } from "../../db/jobs.ts";
import { NotFound } from "../../errors.ts";
import { StatusQuery, type PredictionStatusResponse } from "../../schemas/predictions.ts";

type StatusQueryValues = z.output<typeof StatusQuery>;
import { presentPrediction } from "./present.ts";
import { isDefaultStatusQuery, type ServedStatus } from "./status-documents.ts";

const STATUS_DEFAULTS = StatusQuery.parse({});

/** Either stored bytes to send as they are, or a record to serialise. */
export type PredictionStatusReply = { stored: ServedStatus } | { record: PredictionStatusResponse };

export async function predictionStatus(
  ctx: AppContext,
  account: Account,
  predictionId: string,
  q: StatusQueryValues,
): Promise<PredictionStatusReply> {
  const p = await getPrediction(ctx.db, account.id, predictionId);
  if (!p) throw new NotFound();
  if (p.status === "completed") {
    const served = isDefaultStatusQuery(q, STATUS_DEFAULTS)
      ? await ctx.statusDocuments.serve(p, account)
      : isSmallPreview(q)
        ? null
        : await ctx.statusDocuments.serveAt(p, account, {
            maxRows: q.max_rows,
            maxSourceInfluenceRows: q.max_source_influence_rows,
            maxColumns: q.max_columns,
            target: q.target ?? null,
          });
    if (served) return { stored: served };
  }
  const record = await presentPrediction(p, account, ctx.store, ctx.config.presignTtlSeconds, {
    maxRows: q.max_rows,
    maxSourceInfluenceRows: q.max_source_influence_rows,
    maxColumns: q.max_columns,
    target: q.target,
    withResults: true,
    links: (files) => ctx.statusDocuments.signedLinks(p.id, files),
  });
  return { record };
}

/**
 * A preview small enough to build on the event loop from ranged reads (well under a
 * millisecond of work): at most 1,000 result rows and 100,000 influence cells.
 */
function isSmallPreview(q: StatusQueryValues): boolean {
  return q.max_rows <= 1000 && q.max_source_influence_rows * q.max_columns <= 100_000;
}
