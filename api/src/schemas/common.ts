/** Shared pieces of the zod schemas; the OpenAPI document is generated from these. */
import { z } from "zod";

export const JobStatusSchema = z.enum(["pending", "processing", "completed", "failed"]);
export const DateTime = z.string().meta({ format: "date-time" });
export const Uuid = z.uuid();

export const ErrorBody = z.object({ detail: z.string() }).meta({ id: "ErrorResponse" });

export const ValidationErrorItem = z.object({
  loc: z.array(z.union([z.string(), z.number().int()])),
  msg: z.string(),
  type: z.string(),
  input: z.unknown().optional(),
  ctx: z.record(z.string(), z.unknown()).optional(),
});
export const HTTPValidationError = z
  .object({ detail: z.array(ValidationErrorItem) })
  .meta({ id: "HTTPValidationError" });

export const Artifact = z.object({ name: z.string(), url: z.string() }).meta({ id: "Artifact" });

export const PredictionIdParams = z.object({ prediction_id: Uuid });
export const CausalAnalysisIdParams = z.object({ causal_analysis_id: Uuid });

/** Error responses every authenticated route documents. */
export const commonErrors = {
  401: ErrorBody,
  422: HTTPValidationError,
  500: ErrorBody,
  503: ErrorBody,
} as const;

export const PngResponse = {
  description: "PNG image",
  content: { "image/png": { schema: z.string().meta({ format: "binary" }) } },
};
