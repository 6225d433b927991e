/**
 * Derived results of a completed target_validation prediction (service-spec §4.4–4.8):
 * mapped DEGs, impacted DEGs, causal paths, intermediary proteins and the on-demand graph.
 * A prediction that is missing, foreign, not completed or of another job type is 404.
 */
import type { FastifyInstance } from "fastify";
import type { ZodTypeProvider } from "fastify-type-provider-zod";
import { z } from "zod";
import { ARTIFACTS, symbolOf } from "@causeway/contract";
import { numberCell, parseTsvRecords } from "@causeway/runner/artifacts";
import { exportCausalGraph } from "@causeway/runner/graph/export";
import type { AppContext } from "../../context.ts";
import type { Account } from "../../db/accounts.ts";
import { getPrediction, type PredictionRow } from "../../db/jobs.ts";
import { NotFound, invalid } from "../../errors.ts";
import { isInvalidGraphInputs } from "../../runner-pieces.ts";
import { ErrorBody, PngResponse, PredictionIdParams, commonErrors } from "../../schemas/common.ts";
import {
  CausalGraphQuery,
  CausalPathsResponse,
  DegsImpactedResponse,
  IntermediaryProteinsResponse,
  IntermediaryQuery,
  MappedDegsResponse,
  type CausalPathRow,
} from "../../schemas/predictions.ts";
import { GraphExportResponse, PredictionGraphExportQuery } from "../../schemas/graph-export.ts";
import { sendGraphExport } from "../../services/graph-export.ts";
import { readArtifact, readArtifactOr500, readJsonArtifact } from "../../services/artifacts.ts";
import { primaryPrefix } from "../../services/present.ts";

/** Row cap of the causal-paths route (model.md §10.5). */
export const CAUSAL_PATHS_CAP = 10_000;

const DegsImpactedJson = z.object({
  target: z.string().nullable().optional(),
  min_deg_fold_uniform: z.number().nullable().optional(),
  degs_total: z.number().int().min(0).optional(),
  degs: z.array(z.string()),
});

async function completedValidation(ctx: AppContext, account: Account, id: string): Promise<PredictionRow> {
  const p = await getPrediction(ctx.db, account.id, id);
  if (!p || p.status !== "completed" || p.job_type !== "target_validation") throw new NotFound();
  return p;
}

async function impacted(ctx: AppContext, p: PredictionRow) {
  const parsed = DegsImpactedJson.safeParse(
    await readJsonArtifact(ctx.store, p.result_files, primaryPrefix(p) + ARTIFACTS.degsImpacted),
  );
  if (!parsed.success) throw new NotFound();
  return parsed.data;
}

async function pathRecords(ctx: AppContext, p: PredictionRow): Promise<Record<string, string>[]> {
  const buf = await readArtifact(ctx.store, p.result_files, primaryPrefix(p) + ARTIFACTS.causalPaths);
  if (!buf) throw new NotFound();
  return parseTsvRecords(buf.toString("utf8"));
}

const intOrNull = (cell: string | undefined) => {
  const v = numberCell(cell);
  return v !== null && Number.isInteger(v) ? v : null;
};
const finiteOrNull = (cell: string | undefined) => {
  const v = numberCell(cell);
  return v !== null && Number.isFinite(v) ? v : null;
};

/** The public columns of a causal_paths.tsv row (artifact-only columns are dropped). */
export function redactPath(r: Record<string, string>): CausalPathRow {
  return {
    deg: r.deg ?? "",
    target: r.target ?? "",
    path: r.path ?? "",
    length: intOrNull(r.length),
    score_path_given_target: finiteOrNull(r.score_path_given_target),
    path_logFC: finiteOrNull(r.path_logFC),
    deg_logFC: finiteOrNull(r.deg_logFC),
  };
}

export function derivedRoutes(app: FastifyInstance, ctx: AppContext): void {
  const r = app.withTypeProvider<ZodTypeProvider>();
  const base = { tags: ["derived results"], security: [{ ApiKey: [] }], params: PredictionIdParams };

  r.get(
    "/v1/predictions/:prediction_id/mapped-degs",
    {
      schema: {
        ...base,
        summary: "DEGs mapped onto the interactome",
        response: { 200: MappedDegsResponse, 404: ErrorBody, ...commonErrors },
      },
    },
    async (request) => {
      const p = await completedValidation(ctx, request.account!, request.params.prediction_id);
      const json = await readJsonArtifact(ctx.store, p.result_files, primaryPrefix(p) + ARTIFACTS.mappedDegs);
      const list = z
        .union([z.array(z.string()), z.object({ degs: z.array(z.string()) }).transform((o) => o.degs)])
        .safeParse(json);
      if (!list.success) throw new NotFound();
      return { prediction_id: p.id, degs: list.data.map(symbolOf) };
    },
  );

  r.get(
    "/v1/predictions/:prediction_id/degs-impacted",
    {
      schema: {
        ...base,
        summary: "DEGs impacted by the target",
        response: { 200: DegsImpactedResponse, 404: ErrorBody, ...commonErrors },
      },
    },
    async (request) => {
      const p = await completedValidation(ctx, request.account!, request.params.prediction_id);
      const j = await impacted(ctx, p);
      return {
        prediction_id: p.id,
        target: p.target,
        min_deg_fold_uniform: j.min_deg_fold_uniform ?? null,
        degs: j.degs.map(symbolOf),
      };
    },
  );

  r.get(
    "/v1/predictions/:prediction_id/causal-paths",
    {
      schema: {
        ...base,
        summary: "Causal paths to the impacted DEGs",
        response: { 200: CausalPathsResponse, 404: ErrorBody, ...commonErrors },
      },
    },
    async (request) => {
      const p = await completedValidation(ctx, request.account!, request.params.prediction_id);
      const j = await impacted(ctx, p);
      const degs = j.degs.map(symbolOf);
      const keep = new Set(degs);
      const paths: CausalPathRow[] = [];
      for (const rec of await pathRecords(ctx, p)) {
        if (paths.length >= CAUSAL_PATHS_CAP) break;
        const row = redactPath(rec);
        if (keep.has(symbolOf(row.deg))) paths.push(row);
      }
      return { prediction_id: p.id, degs, degs_total: j.degs_total ?? degs.length, paths };
    },
  );

  r.get(
    "/v1/predictions/:prediction_id/intermediary-proteins",
    {
      schema: {
        ...base,
        summary: "Proteins on the causal paths of the top impacted DEGs",
        querystring: IntermediaryQuery,
        response: { 200: IntermediaryProteinsResponse, 404: ErrorBody, ...commonErrors },
      },
    },
    async (request) => {
      const p = await completedValidation(ctx, request.account!, request.params.prediction_id);
      const j = await impacted(ctx, p);
      const rows = (await pathRecords(ctx, p)).map(redactPath);
      const deg = request.query.deg ?? null;
      const result = await ctx.runner.intermediaryProteins(rows, {
        topNDegs: request.query.top_n_degs,
        deg,
        impactedDegOrder: j.degs,
      });
      return {
        prediction_id: p.id,
        top_n_degs: request.query.top_n_degs,
        deg,
        proteins: result.proteins,
        n_paths_used: result.n_paths_used,
      };
    },
  );

  r.get(
    "/v1/predictions/:prediction_id/causal-graph",
    {
      schema: {
        ...base,
        summary: "Causal-graph PNG re-rendered from stored inputs",
        querystring: CausalGraphQuery,
        response: { 200: PngResponse, 404: ErrorBody, ...commonErrors },
      },
    },
    async (request, reply) => {
      const p = await completedValidation(ctx, request.account!, request.params.prediction_id);
      const json = await storedGraphInputs(ctx, p);
      let png: Buffer;
      try {
        png = await ctx.runner.renderCausalGraph(json, {
          topNDegs: request.query.top_n_degs,
          dpi: request.query.dpi,
        });
      } catch (err) {
        if (isInvalidGraphInputs(err)) throw replayInvalid();
        throw err;
      }
      return reply.type("image/png").send(png as never); // a Buffer is sent as-is, not serialized
    },
  );

  r.get(
    "/v1/predictions/:prediction_id/causal-graph/export",
    {
      schema: {
        ...base,
        summary: "The causal graph as a network file (CX2, GraphML or SIF) for Cytoscape",
        description:
          "The nodes and edges the causal-graph PNG draws for the same top_n_degs, with their attributes; re-built from the stored inputs like the PNG (422 when they are missing or invalid).",
        querystring: PredictionGraphExportQuery,
        response: { 200: GraphExportResponse, 404: ErrorBody, ...commonErrors },
      },
    },
    async (request, reply) => {
      const p = await completedValidation(ctx, request.account!, request.params.prediction_id);
      const json = await storedGraphInputs(ctx, p);
      return sendGraphExport(
        reply,
        p.target,
        () => exportCausalGraph(json, { topNDegs: request.query.top_n_degs, format: request.query.format }),
        replayInvalid,
      );
    },
  );
}

const replayInvalid = () =>
  invalid(
    ["path", "prediction_id"],
    "the stored causal-graph inputs of this prediction are missing or invalid",
    "replay_inputs_invalid",
  );

/** The prediction's `causal_graph_inputs.json`, parsed as JSON; 422 when missing or not JSON (spec §4.8). */
async function storedGraphInputs(ctx: AppContext, p: PredictionRow): Promise<unknown> {
  const buf = await readArtifactOr500(
    ctx.store,
    p.result_files,
    primaryPrefix(p) + ARTIFACTS.causalGraphInputs,
  );
  if (!buf) throw replayInvalid();
  try {
    return JSON.parse(buf.toString("utf8")) as unknown;
  } catch {
    throw replayInvalid();
  }
}
