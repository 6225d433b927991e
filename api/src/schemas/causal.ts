/** Schemas of the causal-analysis routes (service-spec §2.13, §4.9–4.12) and the quota route. */
import { z } from "zod";
import { CausalParams } from "@causeway/contract";
import { Artifact, DateTime, JobStatusSchema, Uuid } from "./common.ts";

const C = CausalParams.shape;

export const CreateCausalAnalysisRequest = z
  .object({
    prediction_id: Uuid,
    target: z.string().min(1).max(128),
    top_n_causal_degs: C.top_n_causal_degs,
    min_path_fraction: C.min_path_fraction,
    min_path_probability: C.min_path_probability,
    max_path_length: C.max_path_length,
    min_degs_fold_uniform: C.min_degs_fold_uniform,
    prefix: C.prefix,
    metadata: z.record(z.string(), z.unknown()).default({}),
    callback_url: z.string().max(2048).nullable().default(null).meta({ description: "Completion webhook" }),
  })
  .meta({ id: "CreateCausalAnalysisRequest" });

export const CreateCausalAnalysisResponse = z
  .object({
    causal_analysis_id: Uuid,
    status: JobStatusSchema.default("pending"),
    estimated_completion: DateTime.nullable().optional(),
  })
  .meta({ id: "CreateCausalAnalysisResponse" });

export const CausalAnalysisResult = z
  .object({ image_base64: z.string() })
  .meta({ id: "CausalAnalysisResult" });

export const CausalAnalysisStatusResponse = z
  .object({
    causal_analysis_id: Uuid,
    status: JobStatusSchema,
    prediction_id: Uuid,
    target: z.string(),
    created_at: DateTime,
    started_at: DateTime.nullable().optional(),
    completed_at: DateTime.nullable().optional(),
    error_message: z.string().nullable().optional(),
    results: CausalAnalysisResult.nullable().optional(),
    artifacts: z.array(Artifact).nullable().optional(),
  })
  .meta({ id: "CausalAnalysisStatusResponse" });

export const CausalAnalysisListItem = z
  .object({ causal_analysis_id: Uuid, target: z.string(), status: JobStatusSchema })
  .meta({ id: "CausalAnalysisListItem" });

export const CausalAnalysisListResponse = z
  .object({ items: z.array(CausalAnalysisListItem) })
  .meta({ id: "CausalAnalysisListResponse" });

export const CausalAnalysisListQuery = z.object({ prediction_id: Uuid });

export const QuotaResponse = z
  .object({
    total_quota_requests: z.number().int(),
    consumed_quota_requests: z.number().int(),
    remaining_quota_requests: z.number().int(),
  })
  .meta({ id: "QuotaResponse" });
