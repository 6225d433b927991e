/** Standalone causal-analysis jobs (service-spec §4.9–4.12, model.md §10.8). */
import type { FastifyInstance } from "fastify";
import type { ZodTypeProvider } from "fastify-type-provider-zod";
import { ARTIFACTS } from "@causeway/contract";
import type { AppContext } from "../../context.ts";
import { getPrediction, listCausalAnalyses } from "../../db/jobs.ts";
import { requestJobTrace } from "../../observability/request-tracing.ts";
import { NotFound } from "../../errors.ts";
import {
  CausalAnalysisListQuery,
  CausalAnalysisListResponse,
  CausalAnalysisStatusResponse,
  CreateCausalAnalysisRequest,
  CreateCausalAnalysisResponse,
} from "../../schemas/causal.ts";
import { CausalAnalysisIdParams, ErrorBody, PngResponse, commonErrors } from "../../schemas/common.ts";
import { readArtifactOr500 } from "../../services/status/artifacts.ts";
import { AnalysisGraphExportQuery, GraphExportResponse } from "../../schemas/graph-export.ts";
import { ANALYSIS_GRAPH_DEGS, exportCausalGraph } from "@causeway/runner/graph/export";
import { sendGraphExport } from "../../services/causal/graph-export.ts";
import {
  analysesHiddenFrom,
  createCausalAnalysis,
  visibleCausalAnalysis,
} from "../../services/causal/causal-analysis.ts";
import { presentCausalAnalysis } from "../../services/status/present.ts";
import { IdempotencyHeaders } from "../../schemas/idempotency.ts";
import { BodyFingerprint, pathOf } from "./request-fingerprint.ts";

declare module "fastify" {
  interface FastifyRequest {
    /** The raw body's fingerprint, taken while it is read (Idempotency-Key). */
    bodyFingerprint?: BodyFingerprint;
  }
}

export function causalAnalysisRoutes(app: FastifyInstance, ctx: AppContext): void {
  const r = app.withTypeProvider<ZodTypeProvider>();
  const base = { tags: ["causal analysis"], security: [{ ApiKey: [] }] };

  r.post(
    "/v1/causal-analysis",
    {
      schema: {
        ...base,
        summary: "Create a causal-analysis job for a completed prediction",
        headers: IdempotencyHeaders,
        body: CreateCausalAnalysisRequest,
        // 429: the account's causal-analysis rate or in-flight limit (Retry-After).
        response: {
          202: CreateCausalAnalysisResponse,
          404: ErrorBody,
          409: ErrorBody,
          429: ErrorBody,
          ...commonErrors,
        },
      },
      // The fingerprint hashes the body's bytes as they arrive, before JSON parsing.
      preParsing: async (request, _reply, payload) => {
        const fingerprint = new BodyFingerprint(request.method, pathOf(request.url));
        request.bodyFingerprint = fingerprint;
        return payload.pipe(fingerprint.tap());
      },
    },
    async (request, reply) => {
      const key = request.headers["idempotency-key"];
      const fingerprint = request.bodyFingerprint ?? new BodyFingerprint(request.method, pathOf(request.url));
      const accepted = await createCausalAnalysis(ctx, {
        account: request.account!,
        request: request.body,
        trace: requestJobTrace(request),
        log: request.log,
        idempotency: key === undefined ? null : { key, fingerprint: async () => fingerprint.finish() },
      });
      if (accepted.replayed) reply.header("idempotent-replayed", "true");
      return reply.code(202).send(accepted.body);
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
      if (analysesHiddenFrom(account, p)) return { items: [] };
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
      const c = await visibleCausalAnalysis(ctx, request.account!, request.params.causal_analysis_id);
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
      const c = await visibleCausalAnalysis(ctx, request.account!, request.params.causal_analysis_id);
      if (!c || c.status !== "completed") throw new NotFound();
      const png = await readArtifactOr500(ctx.store, c.result_files, ARTIFACTS.causalGraph);
      if (!png) throw new NotFound();
      return reply.type("image/png").send(png as never); // a Buffer is sent as-is, not serialized
    },
  );

  r.get(
    "/v1/causal-analysis/:causal_analysis_id/graph/export",
    {
      schema: {
        ...base,
        summary: "The causal graph of a completed causal analysis as a network file (CX2, GraphML or SIF)",
        description:
          "The nodes and edges of the analysis's own PNG (its first min(20, |D_t|) impacted DEGs), with their attributes. 404 as for the PNG, also for an analysis stored without graph inputs.",
        params: CausalAnalysisIdParams,
        querystring: AnalysisGraphExportQuery,
        response: { 200: GraphExportResponse, 404: ErrorBody, ...commonErrors },
      },
    },
    async (request, reply) => {
      const c = await visibleCausalAnalysis(ctx, request.account!, request.params.causal_analysis_id);
      if (!c || c.status !== "completed") throw new NotFound();
      const buf = await readArtifactOr500(ctx.store, c.result_files, ARTIFACTS.causalGraphInputs);
      if (!buf) throw new NotFound();
      let json: unknown;
      try {
        json = JSON.parse(buf.toString("utf8"));
      } catch {
        throw new Error(`causal analysis ${c.id}: stored graph inputs are not JSON`);
      }
      // The job wrote and validated these inputs itself (causal-step.ts): a failure here is ours, a 500.
      return sendGraphExport(
        reply,
        c.target,
        () => exportCausalGraph(json, { topNDegs: ANALYSIS_GRAPH_DEGS, format: request.query.format }),
        () => new Error(`causal analysis ${c.id}: stored graph inputs are invalid`),
      );
    },
  );
}
