/**
 * The job spec: everything a runner needs to run one job, by reference (object keys,
 * parameters, model version), never data. It is the single source for the API (which
 * builds it), the custom resources (whose `spec` is this object, see crds/) and the runner
 * (which validates it at its edge).
 */
import { z } from "zod";
import { DatasetOptions } from "./dataset-options.ts";

const objectKey = z.string().min(1).max(1024);

/** What a submitter may say they did to the cells (model v4 conditions on it; others ignore it). */
export const PERTURBATION_TYPES = [
  "ligand",
  "drug",
  "knockout",
  "knockdown",
  "overexpression",
  "unknown",
] as const;
export const PerturbationType = z.enum(PERTURBATION_TYPES);
export type PerturbationType = z.infer<typeof PerturbationType>;

/** Parameter bounds of service-spec §4.1 and §4.9; defaults are the model's (model.md §19). */
export const TargetIdParams = z.object({
  deg_significance_fold: z.number().positive().default(1.0),
  min_mean_expression: z.number().min(0).default(0.1),
  n_randomizations: z.number().int().min(0).max(10_000).default(0),
  /**
   * What the submitter did to the cells (model v4 conditions its class prior on it; other
   * versions ignore it). Absent: unknown.
   */
  perturbation_type: PerturbationType.optional(),
});

export const CausalParams = z.object({
  top_n_causal_degs: z.number().int().min(1).max(100_000).default(1000),
  min_path_fraction: z.number().min(0).max(1).default(0.1),
  min_path_probability: z.number().gt(0).max(1).default(0.0001),
  // The contract sets only a minimum. The path search's work budget (runner/src/causal/paths.ts)
  // is what bounds a long length with a low min_path_probability: such a job fails with
  // path_search_too_large (not billed), so a length the network can carry is never refused.
  max_path_length: z.number().int().min(1).nullable().default(null),
  min_degs_fold_uniform: z.number().nullable().default(null),
  prefix: z.string().max(256).nullable().default(null),
});

export const PredictionParams = TargetIdParams.extend(CausalParams.shape);
export type PredictionParams = z.infer<typeof PredictionParams>;
export type CausalParams = z.infer<typeof CausalParams>;

export const MergedInputs = z.object({
  shape: z.literal("merged"),
  dataset_key: objectKey,
});

/** Split inputs (contract rule 4): the control object plus its sibling objects. */
export const SplitInputs = z.object({
  shape: z.literal("split"),
  control_key: objectKey,
  perturbed_key: objectKey,
  degs_key: objectKey,
});

export const PredictionInputs = z.discriminatedUnion("shape", [MergedInputs, SplitInputs]);
export type PredictionInputs = z.infer<typeof PredictionInputs>;

export const JobType = z.enum(["target_id", "target_validation"]);
export type JobType = z.infer<typeof JobType>;

/** A spec field that contract rule 1 can find wrong. */
export type TargetValidationField = "target" | "inputs";

/**
 * Contract rule 1 (service-spec §4.1): a target_validation job names its target and runs on the
 * split inputs. The job spec below is refined by it; the API also applies it to the submitted
 * form, whose shape is known before any object is stored. Violations in field order.
 */
export function targetValidationViolations(spec: {
  job_type: JobType;
  target: string | null;
  inputs: { shape: PredictionInputs["shape"] };
}): TargetValidationField[] {
  if (spec.job_type !== "target_validation") return [];
  const wrong: TargetValidationField[] = [];
  if (spec.target === null) wrong.push("target");
  if (spec.inputs.shape !== "split") wrong.push("inputs");
  return wrong;
}

const TARGET_VALIDATION_MESSAGES: Record<TargetValidationField, string> = {
  target: "target_validation requires target",
  inputs: "target_validation requires split inputs",
};

export const PredictionJobSpec = z
  .object({
    kind: z.literal("prediction"),
    /** The prediction id (uuid); also the job id that callbacks carry. */
    job_id: z.uuid(),
    account_id: z.uuid(),
    job_type: JobType,
    model_version: z.string().min(1).max(128),
    /** Protein entity id; required for target_validation (contract rule 1). */
    target: z.string().min(1).max(128).nullable(),
    inputs: PredictionInputs,
    params: PredictionParams,
    /** What the submitter said about the dataset's columns and species; absent in specs written before it existed. */
    dataset: DatasetOptions.optional(),
    /** Object-key prefix under which the runner writes this attempt's artifacts. */
    output_prefix: objectKey,
  })
  .superRefine((spec, ctx) => {
    for (const field of targetValidationViolations(spec))
      ctx.addIssue({
        code: "custom",
        path: [field],
        message: TARGET_VALIDATION_MESSAGES[field],
        input: spec,
      });
  });
export type PredictionJobSpec = z.infer<typeof PredictionJobSpec>;

/**
 * A standalone causal analysis of a completed prediction (service-spec §4.9, model.md §10.8).
 * It reads the prediction's own artifacts, so it is given their keys.
 */
export const CausalAnalysisJobSpec = z.object({
  kind: z.literal("causal_analysis"),
  /** The causal-analysis id (uuid). */
  job_id: z.uuid(),
  account_id: z.uuid(),
  prediction_id: z.uuid(),
  model_version: z.string().min(1).max(128),
  target: z.string().min(1).max(128),
  /** Object keys of the prediction's artifacts, by basename (mapped_degs.json, degs.tsv, ...). */
  prediction_artifacts: z.record(z.string().min(1).max(256), objectKey),
  params: CausalParams,
  metadata: z.record(z.string(), z.unknown()).default({}),
  output_prefix: objectKey,
});
export type CausalAnalysisJobSpec = z.infer<typeof CausalAnalysisJobSpec>;

export const JobSpec = z.discriminatedUnion("kind", [PredictionJobSpec, CausalAnalysisJobSpec]);
export type JobSpec = z.infer<typeof JobSpec>;
export type JobKind = JobSpec["kind"];

/**
 * The stored objects a job reads: a job whose objects are all still there can run again (the
 * embedded executor re-dispatches such jobs after a restart).
 */
export function jobInputKeys(spec: JobSpec): string[] {
  if (spec.kind === "causal_analysis") return Object.values(spec.prediction_artifacts);
  const inputs = spec.inputs;
  return inputs.shape === "merged"
    ? [inputs.dataset_key]
    : [inputs.control_key, inputs.perturbed_key, inputs.degs_key];
}

/**
 * Environment of a runner process, whoever starts it (Kubernetes Job, local executor):
 * the job spec as JSON, where to report, and the per-job callback key.
 */
export const RUNNER_ENV = {
  jobSpec: "CAUSEWAY_JOB_SPEC",
  callbackUrl: "CAUSEWAY_CALLBACK_URL",
  callbackKey: "CAUSEWAY_CALLBACK_KEY",
  /**
   * A file holding the callback key instead (the Kubernetes Job mounts its Secret there): a key in
   * the environment would show in `kubectl describe pod` and in crash dumps. Wins over callbackKey.
   */
  callbackKeyFile: "CAUSEWAY_CALLBACK_KEY_FILE",
  attempt: "CAUSEWAY_ATTEMPT",
} as const;
