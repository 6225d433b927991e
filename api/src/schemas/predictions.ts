/** Schemas of the prediction routes (service-spec §2.1–2.12, §4.1–4.8). */
import { z } from "zod";
import { PredictionParams, Species } from "@causeway/contract";
import { DatasetSummary, JobWarning } from "@causeway/contract";
import { Artifact, DateTime, JobStatusSchema, Uuid } from "./common.ts";
import {
  DATASET_SUMMARY_FIELDS,
  PARAMETERS,
  MATRIX_FIELDS,
  QUERY_PARAMS,
  STATUS_FIELDS,
  TARGET_COLUMNS,
  described,
} from "./field-docs.ts";

export const PredictionResultRow = z
  .object(
    described(
      {
        id: z.string(),
        score: z.number(),
        rank: z.number().int().nullable().optional(),
        rank_percentage: z.number().nullable().optional(),
        is_deg: z.boolean().nullable().optional(),
        pvalue: z.number().nullable().optional(),
        z_score: z.number().nullable().optional(),
        protein_expressed: z.boolean().nullable().optional(),
        node_type: z.string().nullable().optional(),
        n_degs_significant: z.number().int().nullable().optional(),
        percentage_degs_significant: z.number().nullable().optional(),
      },
      TARGET_COLUMNS,
    ),
  )
  .meta({ id: "PredictionResultRow" });
export type PredictionResultRow = z.infer<typeof PredictionResultRow>;

export const SourceInfluenceMatrixPreview = z
  .object(
    described(
      {
        row_ids: z.array(z.string()),
        column_ids: z.array(z.string()),
        data: z.array(z.array(z.number().nullable())),
        truncated_rows: z.boolean(),
        truncated_columns: z.boolean(),
      },
      MATRIX_FIELDS,
    ),
  )
  .meta({ id: "SourceInfluenceMatrixPreview" });
export type SourceInfluenceMatrixPreview = z.infer<typeof SourceInfluenceMatrixPreview>;

export const TargetValidationScoreRow = z
  .object({ id: z.string(), percentage_degs_significant: z.number().nullable() })
  .meta({ id: "TargetValidationScoreRow" });

export const DatasetSummarySchema = z
  .object(described(DatasetSummary.shape, DATASET_SUMMARY_FIELDS))
  .meta({ id: "DatasetSummary" });

export const JobWarningSchema = JobWarning.extend({
  code: JobWarning.shape.code.meta({ description: "Stable warning code" }),
  message: JobWarning.shape.message.meta({ description: "What was noticed and what to do about it" }),
}).meta({ id: "JobWarning" });

export const PredictionStatusResponse = z
  .object(
    described(
      {
        prediction_id: Uuid,
        status: JobStatusSchema,
        created_at: DateTime,
        started_at: DateTime.nullable(),
        completed_at: DateTime.nullable(),
        error_message: z.string().nullable(),
        error_code: z.string().nullable().optional(),
        error_detail: z.string().nullable().optional(),
        label: z.string().nullable().optional(),
        job_type: z.string().nullable().optional(),
        model_version: z.string().nullable().optional(),
        target: z.string().nullable().optional(),
        dataset_summary: DatasetSummarySchema.nullable().optional(),
        results: z.array(PredictionResultRow).nullable().optional(),
        source_influence_matrix: SourceInfluenceMatrixPreview.nullable().optional(),
        artifacts: z.array(Artifact).nullable().optional(),
        target_validation_score: TargetValidationScoreRow.nullable().optional(),
        causal_paths: z.array(z.record(z.string(), z.unknown())).nullable().optional(),
        processing_step: z.string().nullable().optional(),
        progress_pct: z.number().int().nullable().optional(),
        warnings: z
          .array(JobWarningSchema)
          .optional()
          .meta({
            description:
              "What the analysis noticed that affects how to read the result (present when there is any): " +
              "low_residual_df, unresolved_genes, unresolved_degs, ambiguous_degs, degs_cover_most_of_universe, species_mismatch_suspected, " +
              "subsampled, pooled_fold_changes, no_sample_column, no_cell_type_column, cell_type_mismatch, donor_not_paired, paired_by_sample_ids, arm_labels_unclear, " +
              "few_development_experiments (model v4 was fitted on few experiments of this perturbation type and list kind)",
          }),
      },
      STATUS_FIELDS,
    ),
  )
  .meta({ id: "PredictionStatusResponse" });
export type PredictionStatusResponse = z.infer<typeof PredictionStatusResponse>;

export const PredictResponse = z
  .object({
    prediction_id: Uuid,
    status: JobStatusSchema,
    estimated_completion: DateTime.nullable().optional(),
    n_degs: z.number().int().optional().meta({
      description:
        "split shape: distinct entries of the degs list (absent when the list could not be checked)",
    }),
    n_degs_recognised: z.number().int().optional().meta({
      description:
        "split shape: entries of the degs list recognised as genes (symbols, Ensembl ids, or mouse symbols with species=mouse)",
    }),
  })
  .meta({ id: "PredictResponse" });

export const PredictionsListResponse = z
  .object({ predictions: z.array(PredictionStatusResponse), next_cursor: z.string().nullable().optional() })
  .meta({ id: "PredictionsListResponse" });

export const ListQuery = z.object({
  limit: z.coerce
    .number()
    .int()
    .min(1)
    .max(100)
    .default(50)
    .meta({ description: QUERY_PARAMS.limit.summary }),
  cursor: z
    .string()
    .regex(/^[A-Za-z0-9_-]{32}$/)
    .optional()
    .meta({
      description:
        "Opaque page token: the next_cursor of the previous page, passed back unchanged. " +
        "A value of another shape is answered 422 (loc query.cursor).",
    }),
});

export const StatusQuery = z.object(
  described(
    {
      max_rows: z.coerce.number().int().min(1).max(15000).default(15000),
      max_source_influence_rows: z.coerce.number().int().min(1).max(50000).default(50000),
      max_columns: z.coerce.number().int().min(1).max(512).default(512),
      target: z.string().min(1).max(128).optional(),
    },
    QUERY_PARAMS,
  ),
);

export const MappedDegsResponse = z
  .object({ prediction_id: Uuid, degs: z.array(z.string()) })
  .meta({ id: "MappedDegsResponse" });

export const DegsImpactedResponse = z
  .object({
    prediction_id: Uuid,
    target: z.string().nullable(),
    min_deg_fold_uniform: z.number().nullable(),
    degs: z.array(z.string()),
  })
  .meta({ id: "DegsImpactedResponse" });

export const CausalPathRow = z
  .object({
    deg: z.string(),
    target: z.string(),
    path: z.string(),
    length: z.number().int().nullable(),
    score_path_given_target: z.number().nullable(),
    path_logFC: z.number().nullable(),
    deg_logFC: z.number().nullable(),
  })
  .meta({ id: "CausalPathRow" });
export type CausalPathRow = z.infer<typeof CausalPathRow>;

export const CausalPathsResponse = z
  .object({
    prediction_id: Uuid,
    degs: z.array(z.string()),
    degs_total: z.number().int().min(0).default(0),
    paths: z.array(CausalPathRow),
  })
  .meta({ id: "CausalPathsResponse" });

export const IntermediaryQuery = z.object(
  described(
    {
      top_n_degs: z.coerce.number().int().min(1).max(10000),
      deg: z.string().min(1).max(128).optional(),
    },
    QUERY_PARAMS,
  ),
);

export const IntermediaryProteinsResponse = z
  .object({
    prediction_id: Uuid,
    top_n_degs: z.number().int(),
    deg: z.string().nullable(),
    proteins: z.array(z.string()),
    n_paths_used: z.number().int().default(0),
  })
  .meta({ id: "IntermediaryProteinsResponse" });

export const CausalGraphQuery = z.object(
  described(
    {
      top_n_degs: z.coerce.number().int().min(1).max(10000),
      dpi: z.coerce.number().int().min(72).max(600).default(200),
    },
    QUERY_PARAMS,
  ),
);

// ── POST /v1/predictions form fields (multipart, validated by hand) ─────────────────────────

const P = PredictionParams.shape;

/** A form number: multipart fields are strings. Empty means absent. */
const formNumber = <T extends z.ZodType>(schema: T) =>
  z.preprocess(
    (v) => (v === "" || v === undefined ? undefined : typeof v === "string" ? Number(v) : v),
    schema,
  );
const formNullableNumber = <T extends z.ZodType>(schema: T) =>
  z.preprocess(
    (v) => (v === "" || v === undefined || v === "null" ? null : typeof v === "string" ? Number(v) : v),
    schema,
  );
const formNullableString = (max: number) =>
  z.preprocess((v) => (v === "" || v === undefined ? null : v), z.string().min(1).max(max).nullable());

/** Optional fields that say what the dataset's obs columns are (additive to the contract). */
export const DATASET_FIELD_DESCRIPTIONS = {
  condition_column: "obs column holding the condition of each observation (default: detected by name)",
  control_level:
    "level of the condition column that is the control arm (default: the level named like a control)",
  sample_column: "obs column holding the biological sample of each observation (default: detected by name)",
  donor_column:
    "obs column holding the donor (blocking factor of a paired design; default: detected by name)",
  cell_type_column: "obs column holding the cell type (default: detected by name)",
  cell_type:
    "merged shape: analyse only the observations of this cell type (a level of the cell-type column)",
} as const;
type DatasetField = keyof typeof DATASET_FIELD_DESCRIPTIONS;
const DATASET_FORM_FIELDS = Object.fromEntries(
  Object.entries(DATASET_FIELD_DESCRIPTIONS).map(([k, d]) => [
    k,
    formNullableString(256).meta({ description: d }),
  ]),
) as Record<DatasetField, ReturnType<typeof formNullableString>>;
const SPECIES_DESCRIPTION =
  "species of the gene identifiers: human (default) or mouse (mouse symbols mapped to human through one-to-one orthologues)";

/** Text fields of the multipart body, with the contract's bounds and defaults (PredictionParams). */
export const PredictionForm = z.object({
  job_type: z.preprocess(
    (v) => (v === "" || v === undefined ? undefined : v),
    z.enum(["target_id", "target_validation"]).default("target_id"),
  ),
  target: formNullableString(128),
  degs: z.string().optional(),
  deg_significance_fold: formNumber(P.deg_significance_fold),
  min_mean_expression: formNumber(P.min_mean_expression),
  n_randomizations: formNumber(P.n_randomizations),
  top_n_causal_degs: formNumber(P.top_n_causal_degs),
  min_path_fraction: formNumber(P.min_path_fraction),
  min_path_probability: formNumber(P.min_path_probability),
  max_path_length: formNullableNumber(P.max_path_length),
  min_degs_fold_uniform: formNullableNumber(P.min_degs_fold_uniform),
  prefix: formNullableString(256),
  model_version: formNullableString(128),
  label: formNullableString(256),
  callback_url: formNullableString(2048).meta({ description: "Completion webhook (see the README)" }),
  ...DATASET_FORM_FIELDS,
  species: z.preprocess((v) => (v === "" || v === undefined ? undefined : v), Species.default("human")),
  perturbation_type: z.preprocess((v) => (v === "" ? undefined : v), P.perturbation_type),
});
export type PredictionForm = z.infer<typeof PredictionForm>;

/** The degs field: a JSON array of 1..20,000 gene symbols. */
export const MAX_DEGS = 20_000;
export const DegList = z.array(z.string().min(1).max(64)).min(1).max(MAX_DEGS);

const binary = (description: string) => z.string().meta({ format: "binary", description });

/**
 * Every field of the multipart body of POST /v1/predictions as clients send it (defaults are
 * not required). The choice between the merged and the split input shape is not expressible
 * in zod on a multipart body; plugins/openapi-document.ts adds it around this component. No
 * other field is documented (the server ignores a few unknown ones, as form handlers do).
 */
export const PredictionCreateForm = z
  .strictObject(
    described(
      {
        dataset: binary("merged shape: one .h5ad file").optional(),
        dataset_control: binary("split shape: control .h5ad").optional(),
        dataset_pert: binary("split shape: perturbed .h5ad").optional(),
        degs: DegList.optional().meta({
          description: "split shape: HGNC gene symbols, sent as one part holding a JSON array",
        }),
        job_type: z.enum(["target_id", "target_validation"]).default("target_id"),
        target: z
          .string()
          .min(1)
          .max(128)
          .optional()
          .meta({ description: "protein entity id (SYMBOL|PROTEIN); required for target_validation" }),
        deg_significance_fold: P.deg_significance_fold,
        min_mean_expression: P.min_mean_expression,
        n_randomizations: P.n_randomizations,
        top_n_causal_degs: P.top_n_causal_degs,
        min_path_fraction: P.min_path_fraction,
        min_path_probability: P.min_path_probability,
        max_path_length: P.max_path_length,
        min_degs_fold_uniform: P.min_degs_fold_uniform,
        prefix: z.string().min(1).max(256).nullable().optional(),
        model_version: z.string().min(1).max(128).nullable().optional(),
        label: z.string().min(1).max(256).nullable().optional(),
        ...(Object.fromEntries(
          Object.entries(DATASET_FIELD_DESCRIPTIONS).map(([k, d]) => [
            k,
            z.string().min(1).max(256).optional().meta({ description: d }),
          ]),
        ) as Record<DatasetField, z.ZodOptional<z.ZodString>>),
        species: Species.default("human").meta({ description: SPECIES_DESCRIPTION }),
        perturbation_type: P.perturbation_type,
      },
      PARAMETERS,
    ),
  )
  .meta({ id: "PredictionCreateForm" });
export type PredictionCreateForm = z.input<typeof PredictionCreateForm>;
