/** Standalone causal-analysis jobs (service-spec §4.9–4.12, model.md §10.8). */
import type { FastifyInstance } from "fastify";
import type { ZodTypeProvider } from "fastify-type-provider-zod";
import { randomBytes } from "node:crypto";
import { ARTIFACTS, CausalAnalysisJobSpec } from "@causeway/contract";
import type { AppContext } from "../../context.ts";
import { getCausalAnalysis, getPrediction, insertCausalAnalysis, listCausalAnalyses } from "../../db/jobs.ts";
import { recordSubmission } from "../../observability/metrics.ts";
import { bindJob, jobTraceContext } from "../../observability/request-tracing.ts";
import { NotFound, ServiceUnavailable, invalid } from "../../errors.ts";
import {
  CausalAnalysisListQuery,
  CausalAnalysisListResponse,
  CausalAnalysisStatusResponse,
  CreateCausalAnalysisRequest,
  CreateCausalAnalysisResponse,
} from "../../schemas/causal.ts";
import { CausalAnalysisIdParams, ErrorBody, PngResponse, commonErrors } from "../../schemas/common.ts";
import { readArtifact, readArtifactOr500, targetIds } from "../../services/artifacts.ts";
import { presentCausalAnalysis } from "../../services/present.ts";

export function causalAnalysisRoutes(app: FastifyInstance, ctx: AppContext): void {
  const r = app.withTypeProvider<ZodTypeProvider>();
  const base = { tags: ["causal analysis"], security: [{ ApiKey: [] }] };

  r.post(
    "/v1/causal-analysis",
    {
      schema: {
        ...base,
        summary: "Create a causal-analysis job for a completed prediction",
        body: CreateCausalAnalysisRequest,
        response: { 202: CreateCausalAnalysisResponse, 404: ErrorBody, ...commonErrors },
      },
    },
    async (request, reply) => {
      const account = request.account!;
      const body = request.body;
      const p = await getPrediction(ctx.db, account.id, body.prediction_id);
      // Missing, foreign and unfinished predictions answer alike.
      if (!p || p.status !== "completed") throw new NotFound();
      const sets = p.result_sets && p.result_sets.length > 0 ? p.result_sets : [""];
      let prefix: string;
      if (body.prefix !== null) {
        if (!sets.includes(body.prefix))
          throw invalid(["body", "prefix"], "no result set has this prefix", "value_error");
        prefix = body.prefix;
      } else if (sets.length > 1) {
        throw invalid(
          ["body", "prefix"],
          `this prediction has several result sets; choose one of: ${sets.join(", ")}`,
          "missing",
        );
      } else {
        prefix = sets[0]!;
      }
      const scores = await readArtifact(ctx.store, p.result_files, prefix + ARTIFACTS.targetScores);
      if (!scores || !targetIds(scores.toString("utf8")).has(body.target)) {
        throw invalid(
          ["body", "target"],
          "target is not a row of the prediction's inference results",
          "value_error",
        );
      }
      // The prediction's artifacts of that result set, by basename without the prefix.
      const artifacts: Record<string, string> = {};
      for (const [name, key] of Object.entries(p.result_files ?? {})) {
        if (prefix === "" || name.startsWith(prefix))
          artifacts[prefix === "" ? name : name.slice(prefix.length)] = key;
        else if (name === ARTIFACTS.runMetadata) artifacts[name] = key;
      }
      const id = ctx.newId();
      bindJob(request, "causal_analysis", id);
      const spec = CausalAnalysisJobSpec.parse({
        kind: "causal_analysis",
        job_id: id,
        account_id: account.id,
        prediction_id: p.id,
        model_version: p.model_version,
        target: body.target,
        prediction_artifacts: artifacts,
        params: {
          top_n_causal_degs: body.top_n_causal_degs,
          min_path_fraction: body.min_path_fraction,
          min_path_probability: body.min_path_probability,
          max_path_length: body.max_path_length,
          min_degs_fold_uniform: body.min_degs_fold_uniform,
          prefix: prefix === "" ? null : prefix,
        },
        metadata: body.metadata,
        output_prefix: `results/${randomBytes(16).toString("hex")}`,
      });
      await insertCausalAnalysis(ctx.db, {
        id,
        accountId: account.id,
        predictionId: p.id,
        target: body.target,
        spec,
        now: ctx.now(),
      });
      try {
        await ctx.dispatcher.dispatch(spec, jobTraceContext(request));
      } catch (err) {
        request.log.error({ err }, "dispatch failed");
        await ctx.jobs.fail(
          "causal_analysis",
          id,
          "internal_error",
          "The job could not be queued. Please submit it again.",
        );
        throw new ServiceUnavailable();
      }
      recordSubmission("causal_analysis");
      return reply.code(202).send({ causal_analysis_id: id, status: "pending", estimated_completion: null });
    },
  );

  r.get(
    "/v1/causal-analysis",
    {
      schema: {
        ...base,
        summary: "Causal analyses of a prediction",
        querystring: CausalAnalysisListQuery,
        response: { 200: CausalAnalysisListResponse, 404: ErrorBody, ...commonErrors },
      },
    },
    async (request) => {
      const account = request.account!;
      const p = await getPrediction(ctx.db, account.id, request.query.prediction_id);
      if (!p) throw new NotFound();
      const rows = await listCausalAnalyses(ctx.db, account.id, p.id);
      return { items: rows.map((c) => ({ causal_analysis_id: c.id, target: c.target, status: c.status })) };
    },
  );

  r.get(
    "/v1/causal-analysis/:causal_analysis_id",
    {
      schema: {
        ...base,
        summary: "Status of a causal analysis (inline PNG when completed)",
        params: CausalAnalysisIdParams,
        response: { 200: CausalAnalysisStatusResponse, 404: ErrorBody, ...commonErrors },
      },
    },
    async (request) => {
      const c = await getCausalAnalysis(ctx.db, request.account!.id, request.params.causal_analysis_id);
      if (!c) throw new NotFound();
      return presentCausalAnalysis(c, ctx.store, ctx.config.presignTtlSeconds);
    },
  );

  r.get(
    "/v1/causal-analysis/:causal_analysis_id/graph",
    {
      schema: {
        ...base,
        summary: "The PNG of a completed causal analysis",
        params: CausalAnalysisIdParams,
        response: { 200: PngResponse, 404: ErrorBody, ...commonErrors },
      },
    },
    async (request, reply) => {
      const c = await getCausalAnalysis(ctx.db, request.account!.id, request.params.causal_analysis_id);
      if (!c || c.status !== "completed") throw new NotFound();
      const png = await readArtifactOr500(ctx.store, c.result_files, ARTIFACTS.causalGraph);
      if (!png) throw new NotFound();
      return reply.type("image/png").send(png as never); // a Buffer is sent as-is, not serialized
    },
  );
}
