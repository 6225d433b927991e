/**
 * Job failure codes and whether each is billable (model.md §14). A failure is billable only
 * when the analysis ran to completion and its answer is negative.
 */
export const FAILURE_CODES = {
  invalid_h5ad: { billable: false },
  too_many_observations: { billable: false },
  counts_not_raw: { billable: false },
  missing_condition_column: { billable: false },
  condition_control_ambiguous: { billable: false },
  missing_sample_column: { billable: false },
  missing_cell_type_column: { billable: false },
  multiple_cell_types: { billable: false },
  gene_symbols_unmapped: { billable: false },
  insufficient_replicates: { billable: false },
  no_degs_detected: { billable: false },
  too_few_mapped_degs: { billable: false },
  degs_cover_universe: { billable: false },
  unknown_model_version: { billable: false },
  target_not_in_interactome: { billable: false },
  target_not_reachable: { billable: true },
  // The path search reached its work budget (thresholds too loose): the service declined the
  // work, so it is not charged; the in-flight and rate limits bound how often it can happen.
  path_search_too_large: { billable: false },
  internal_error: { billable: false },
  // Failures the runner cannot report itself; the operator maps them from the Job and Pod.
  out_of_memory: { billable: false },
  deadline_exceeded: { billable: false },
  job_stalled: { billable: false },
} as const;

export type FailureCode = keyof typeof FAILURE_CODES;
export const FAILURE_CODE_NAMES = Object.keys(FAILURE_CODES) as [FailureCode, ...FailureCode[]];

export const isBillableFailure = (code: FailureCode): boolean => FAILURE_CODES[code].billable;

/**
 * The runner's typed failure: thrown anywhere in a job, turned into one `failed` callback.
 * `message` is user-facing (what was wrong and how to fix it); `detail` is technical and is
 * shown only to internal accounts.
 */
export class JobFailure extends Error {
  readonly code: FailureCode;
  readonly detail: string | undefined;

  constructor(code: FailureCode, message: string, detail?: string) {
    super(message);
    this.name = "JobFailure";
    this.code = code;
    this.detail = detail;
  }
}

/** Process exit codes of the runner, so the operator can tell its outcomes apart (podFailurePolicy). */
export const RUNNER_EXIT = {
  ok: 0,
  /** The job failed with a reported failure code: never worth retrying. */
  jobFailed: 3,
  /** The runner could not report or crashed: retryable. */
  crashed: 1,
} as const;
