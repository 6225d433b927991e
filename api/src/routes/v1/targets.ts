/**
 * GET /v1/predictions/{id}/targets: a page of the ranked target table (target_scores.tsv),
 * sorted, searched and filtered on the server (services/status/target-table.ts). Tenancy as the other
 * id routes: another account's prediction, a missing one and one not completed are the same
 * 404. Tier redaction as the status route's: external accounts see the public columns only.
 */
import type { FastifyInstance } from "fastify";
import type { ZodTypeProvider } from "fastify-type-provider-zod";
import { ARTIFACTS } from "@causeway/contract";
import type { AppContext } from "../../context.ts";
import { getPrediction } from "../../db/jobs.ts";
import { NotFound, invalid } from "../../errors.ts";
import { ErrorBody, PredictionIdParams, commonErrors } from "../../schemas/common.ts";
import { TargetsPage, TargetsQuery } from "../../schemas/targets.ts";
import { primaryPrefix } from "../../services/status/present.ts";
import { readArtifact } from "../../services/status/artifacts.ts";
import {
  PUBLIC_COLUMNS,
  TargetTableCache,
  headPageOf,
  isFileOrder,
  pageOf,
} from "../../services/status/target-table.ts";

export function targetRoutes(app: FastifyInstance, ctx: AppContext): void {
  const tables = new TargetTableCache();
  app.withTypeProvider<ZodTypeProvider>().get(
    "/v1/predictions/:prediction_id/targets",
    {
      schema: {
        summary: "A page of the ranked target table, sorted, searched and filtered on the server",
        description:
          "Pages target_scores.tsv of a completed prediction without loading the status record. " +
          "External accounts see the columns id, score, rank, rank_percentage and is_deg, may sort by " +
          "those only, and may not filter by tier or direction or fold proxies (422).",
        tags: ["predictions"],
        security: [{ ApiKey: [] }],
        params: PredictionIdParams,
        querystring: TargetsQuery,
        response: { 200: TargetsPage, 404: ErrorBody, ...commonErrors },
      },
    },
    async (request) => {
      const account = request.account!;
      const p = await getPrediction(ctx.db, account.id, request.params.prediction_id);
      if (!p || p.status !== "completed") throw new NotFound();
      const q = request.query;
      const full = account.tier === "internal";
      if (!full) {
        if (!(PUBLIC_COLUMNS as readonly string[]).includes(q.sort))
          throw invalid(
            ["query", "sort"],
            `external accounts may sort by ${PUBLIC_COLUMNS.join(", ")}`,
            "value_error",
          );
        for (const field of ["tier", "direction"] as const)
          if (q[field] !== undefined)
            throw invalid(["query", field], `${field} is not available to external accounts`, "value_error");
        if (q.fold_proxies)
          throw invalid(
            ["query", "fold_proxies"],
            "fold_proxies is not available to external accounts",
            "value_error",
          );
      }
      const sets = p.result_sets ?? [];
      const prefix = q.result_set ?? primaryPrefix(p);
      if (
        q.result_set !== undefined &&
        !sets.includes(q.result_set) &&
        !(sets.length === 0 && q.result_set === "")
      )
        throw invalid(["query", "result_set"], "not a result set of this prediction", "value_error");
      const name = prefix + ARTIFACTS.targetScores;
      const pinned = p.job_type === "target_validation" ? p.target : null;
      // The first view of a table not parsed yet is answered from the rows it shows; the whole
      // table is parsed meanwhile for the next request (sorting, searching, paging).
      if (isFileOrder(q) && !(await tables.peek(p.result_files, name))) {
        const text = (await readArtifact(ctx.store, p.result_files, name))?.toString("utf8");
        if (text === undefined) throw new NotFound();
        const head = headPageOf(text, q, full, pinned);
        void tables.get(ctx.store, p.result_files, name).catch(() => undefined);
        if (head) return { prediction_id: p.id, result_set: prefix, ...head };
      }
      const table = await tables.get(ctx.store, p.result_files, name);
      if (!table) throw new NotFound();
      if (!table.columns.includes(q.sort))
        throw invalid(["query", "sort"], "not a column of this table", "value_error");
      return { prediction_id: p.id, result_set: prefix, ...pageOf(table, q, full, pinned) };
    },
  );
}
