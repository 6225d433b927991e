/**
 * The runner's status callback: how a job reports progress, success and failure back to the
 * API (service-spec §6). Transitions are monotonic on the API side, so duplicates and late
 * deliveries are harmless; `seq` orders the callbacks of one attempt.
 */
import { z } from "zod";
import { PROCESSING_STEP_NAMES } from "./processing-steps.ts";
import { FAILURE_CODE_NAMES } from "./failure-codes.ts";
import { JobWarning } from "./dataset-options.ts";

/** The longest failure message and technical detail a callback carries (clipText fits them). */
export const MAX_ERROR_MESSAGE = 4000;
export const MAX_ERROR_DETAIL = 20_000;

/**
 * `text` cut to at most `max` characters, marked with "…" when cut: a runner's message built
 * from the user's data (every obs column of a wide file) must not make its callback invalid,
 * which would lose the failure code it carries.
 */
export function clipText(text: string, max: number): string {
  return text.length <= max ? text : `${text.slice(0, max - 1)}…`;
}

/** What the runner noticed that a user should know (low residual df, unresolved genes, …). */
const warnings = z.array(JobWarning).max(100).optional();

export const DatasetSummary = z.object({
  cell_type: z.string().nullable().optional(),
  disease_label: z.string().nullable().optional(),
  n_cells: z.number().int().nullable().optional(),
  n_genes: z.number().int().nullable().optional(),
  n_perturbations: z.number().int().nullable().optional(),
  n_degs: z.number().int().nullable().optional(),
});
export type DatasetSummary = z.infer<typeof DatasetSummary>;

/** One stored output: its stable basename (what clients see) and its object key (what storage sees). */
export const ResultFile = z.object({
  name: z.string().min(1).max(256),
  key: z.string().min(1).max(1024),
  size_bytes: z.number().int().min(0).optional(),
});
export type ResultFile = z.infer<typeof ResultFile>;

const common = {
  job_id: z.uuid(),
  kind: z.enum(["prediction", "causal_analysis"]),
  /** Identifies one run of the job (a pod, a local process); later attempts supersede earlier ones. */
  attempt: z.string().min(1).max(128),
  seq: z.number().int().min(0),
  /** Seconds since the previous callback of this attempt (stage durations for metrics). */
  stage_seconds: z.number().min(0).optional(),
  /** Peak resident memory of the runner process so far. */
  peak_rss_bytes: z.number().int().min(0).optional(),
};

export const ProgressCallback = z.object({
  ...common,
  status: z.literal("processing"),
  processing_step: z.enum(PROCESSING_STEP_NAMES),
  progress_pct: z.number().int().min(0).max(100),
});

export const CompletedCallback = z.object({
  ...common,
  status: z.literal("completed"),
  result_files: z.array(ResultFile).max(1000),
  dataset_summary: DatasetSummary.nullable().optional(),
  /** Result-set prefixes in preview order (the first one is previewed, model.md §12.2). */
  result_sets: z.array(z.string().max(256)).max(1000).default([""]),
  warnings,
});

export const FailedCallback = z.object({
  ...common,
  status: z.literal("failed"),
  error_code: z.enum(FAILURE_CODE_NAMES),
  error_message: z.string().max(MAX_ERROR_MESSAGE),
  error_detail: z.string().max(MAX_ERROR_DETAIL).nullable().optional(),
  billable: z.boolean(),
  /** Artifacts stored before the failure (for example the tables of a target_not_reachable run). */
  result_files: z.array(ResultFile).max(1000).default([]),
  dataset_summary: DatasetSummary.nullable().optional(),
  warnings,
});

export const RunnerCallback = z.discriminatedUnion("status", [
  ProgressCallback,
  CompletedCallback,
  FailedCallback,
]);
export type RunnerCallback = z.infer<typeof RunnerCallback>;
export type ProgressCallback = z.infer<typeof ProgressCallback>;
export type CompletedCallback = z.infer<typeof CompletedCallback>;
export type FailedCallback = z.infer<typeof FailedCallback>;
