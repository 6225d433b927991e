/**
 * "How to read the results": one plain-words description of every field of the status record,
 * every column of the target table and every query and form parameter. The same text is the
 * `description` of each field in /openapi.json (through `described`), the tooltips and the
 * "How to read" page of the web app, and api/docs/how-to-read.md (generated from this module by
 * `npm run docs:how-to-read`; a unit test keeps the file in step).
 */
import type { z } from "zod";

export interface FieldDoc {
  /** One line: what the field is, in plain words. */
  summary: string;
  /** Optional detail: scale, units, which model version, how to read it. */
  detail?: string;
}

const d = (summary: string, detail?: string): FieldDoc =>
  detail === undefined ? { summary } : { summary, detail };

/** The text of a field as one description string. */
export const describe = (doc: FieldDoc): string =>
  doc.detail ? `${doc.summary} ${doc.detail}` : doc.summary;

/** Fields of the status record (GET /v1/predictions/{id}, the list, the event stream). */
export const STATUS_FIELDS = {
  prediction_id: d("The prediction's id (a UUID); every route about the prediction takes it."),
  status: d(
    "Where the job is: pending (queued), processing (running), completed (results ready) or failed (see error_code).",
  ),
  created_at: d("When the prediction was submitted (UTC, ISO 8601)."),
  started_at: d("When a runner started the job (UTC); null while pending."),
  completed_at: d("When the job ended, completed or failed (UTC); null until then."),
  error_message: d("Why the job failed, in one sentence; null unless status is failed."),
  error_code: d(
    "Stable code of the failure (for example target_not_reachable, invalid_input, job_stalled); null unless failed.",
  ),
  error_detail: d(
    "Technical detail of the failure, for internal accounts only; never shown to external accounts.",
  ),
  label: d("The free-text label given at submission (shown as text, never interpreted)."),
  job_type: d(
    "target_id ranks every candidate protein; target_validation also explains one named target with causal paths.",
  ),
  model_version: d(
    "The model version the job was scored with (v1, v2, …): which columns the table has and which q-value it reports depend on it.",
  ),
  target: d("The protein validated (SYMBOL|PROTEIN entity id) for target_validation; null for target_id."),
  dataset_summary: d(
    "What the runner read from the data: cell type, condition label, cells, genes, perturbation levels, DEGs.",
  ),
  results: d(
    "The first max_rows rows of target_scores.tsv in rank order (the best candidate first).",
    "External accounts get id, score, rank, rank_percentage and is_deg only. The whole table is paged by GET /v1/predictions/{id}/targets.",
  ),
  source_influence_matrix: d(
    "A preview of the source-influence matrix: how strongly each candidate (row) reaches each gene (column) through the network.",
  ),
  artifacts: d(
    "Download links of every result file by its stable name (target_scores.tsv, degs.tsv, causal_paths.tsv, …); links expire.",
    "Not given to external accounts on target_validation jobs.",
  ),
  target_validation_score: d(
    "For target_validation: the target's percentage_degs_significant (0–100), or another candidate's with ?target=.",
  ),
  causal_paths: d("Reserved; causal paths are read from GET /v1/predictions/{id}/causal-paths."),
  processing_step: d(
    "The step the runner is on (validating, aggregating, differential_expression, scoring, causal_analysis, …) while processing.",
  ),
  progress_pct: d("Progress of the job, 0–100, reported by the runner; it only increases."),
  warnings: d(
    "Things the service noticed about the inputs that did not stop the job (code and sentence), for example unrecognised genes.",
  ),
} satisfies Record<string, FieldDoc>;

/** Fields of dataset_summary. */
export const DATASET_SUMMARY_FIELDS = {
  cell_type: d("The cell type analysed, as read from the data (null when the data does not say)."),
  disease_label: d("The condition or perturbation label read from the data."),
  n_cells: d("Number of cells read (both arms of a split upload)."),
  n_genes: d("Number of genes measured."),
  n_perturbations: d("Number of perturbation levels compared with the control (one result set each)."),
  n_degs: d("Number of differentially expressed genes (DEGs) the job used."),
} satisfies Record<string, FieldDoc>;

/** Fields of the source-influence matrix preview. */
export const MATRIX_FIELDS = {
  row_ids: d("Candidate ids of the previewed rows, in rank order."),
  column_ids: d("Gene ids of the previewed columns."),
  data: d("Influence of each row's candidate on each column's gene (0 = none); null where not a number."),
  truncated_rows: d("True when the matrix has more rows than max_source_influence_rows."),
  truncated_columns: d("True when the matrix has more columns than max_columns."),
} satisfies Record<string, FieldDoc>;

/**
 * Columns of target_scores.tsv (model v1, v2 and v3 names). A column not listed here is shown
 * with its name only.
 */
export const TARGET_COLUMNS = {
  id: d(
    "The candidate as an entity id, SYMBOL|PROTEIN (IRF1|PROTEIN is the protein, IRF1|RNA its transcript).",
  ),
  node_type: d("The entity type of the candidate: PROTEIN for every candidate of models v1 and v2."),
  score: d(
    "How well the candidate explains the DEGs: −log10 of its p-value (higher is better; 2 means p = 0.01).",
    "The table's order is by rank, which also uses the tiers of v2; in v3 score stays the ordering score.",
  ),
  rank: d(
    "0-based position in the ranking: 0 is the best candidate, 1 the second.",
    "Ties in score are broken by z_score, then n_degs_significant, then id. In v2 the tier comes first (see tier).",
  ),
  rank_percentage: d(
    "The rank as a fraction of the table, from 0 (best) to 1 (worst): rank ÷ (candidates − 1).",
    "It is a fraction, not a percentage: 0.01 means the top 1 %.",
  ),
  pvalue: d(
    "The candidate's p-value: the chance of an overlap with the DEGs at least this large if the DEGs were random genes.",
    "v1: hypergeometric over network-propagated influence (or the randomization p-value with n_randomizations > 0). v2: Cauchy combination of the propagated and direct-target tests.",
  ),
  z_score: d(
    "How many standard deviations the DEGs the candidate reaches exceed what a random gene set would give.",
  ),
  is_deg: d(
    "Whether the candidate's own gene is among the job's DEGs (often true in knock-down experiments; not used by the score).",
  ),
  protein_expressed: d(
    "Whether the candidate's gene is expressed in the control cells (mean ≥ min_mean_expression counts per 10,000); null when not measured.",
  ),
  n_degs_significant: d(
    "Number of DEGs the candidate significantly influences through the network (a count of genes).",
  ),
  percentage_degs_significant: d(
    "The same as a percentage of the mapped DEGs, on a 0–100 scale (unlike rank_percentage, which is 0–1).",
  ),
  k_expected: d(
    "The number of DEGs a random gene set of the same size would be expected to reach (a count).",
  ),
  n_universe_significant: d(
    "Number of genes of the universe the candidate significantly influences (a count).",
  ),
  mean_log2_fold_degs: d(
    "Mean influence fold over uniform on the DEGs the candidate reaches (log2); empty when it reaches none.",
  ),
  qvalue: d(
    "The p-value corrected for testing every candidate (false discovery rate).",
    "v1: Benjamini–Hochberg over pvalue (or over the randomization p-values). v2: Benjamini–Yekutieli over the combined pvalue, which is more conservative.",
  ),
  pvalue_method: d("How pvalue was computed: hypergeometric, or randomization when n_randomizations > 0."),
  pvalue_propagated: d("v2: the v1-style network-propagated p-value, one of the two combined tests."),
  pvalue_direct: d(
    "v2: p-value of the overlap between the candidate's direct transcriptional targets and the DEGs; empty without a target in the universe.",
  ),
  n_direct_targets: d("v2: number of the candidate's direct transcriptional targets in the universe."),
  n_direct_target_degs: d("v2: how many of those direct targets are DEGs."),
  activation_z: d(
    "v2: the direction score (IPA-style activation z): positive means the DEGs move as if the candidate were activated, negative inhibited.",
    "Reported only; it does not change the rank. Empty without a signed edge into a DEG with a fold change.",
  ),
  activation_state: d(
    "v3: activated, inhibited or undetermined, read from the direction score (see direction).",
  ),
  pvalue_direction: d("v2: two-sided p-value of activation_z."),
  ulm_t: d(
    "v2: activity of the candidate as a transcription factor (univariate linear model t on its signed targets).",
  ),
  pvalue_ulm: d("v2: p-value of ulm_t; empty with fewer than 5 signed targets measured."),
  proxy_of: d(
    "A single-edge proxy: a protein whose only way into the network is one edge into a hub; this names the hub.",
    "A proxy copies its hub's evidence and never ranks above it; the hub is what the table reports (proxies are folded under it).",
  ),
  gene_measured: d(
    "Whether the job's data measured the candidate's gene; empty for a bare DEG list (which measures nothing).",
  ),
  pvalue_expressed: d(
    "For a gene below the expression threshold: the chance of so few reads if it were at the threshold; below 0.05 the candidate is ranked as not expressed.",
  ),
  evidence: d("v2: which evidence the score combines (propagated, direct, or both)."),
  combine: d("v2: how the p-values were combined (for example cauchy)."),
  unmeasured: d("v2: where candidates whose gene was not measured rank (after_measured, or keep)."),
  pvalue_data: d("v3: the p-value from the data alone, before the prior."),
  prior: d("v3: the prior's value for the candidate (what was known before this dataset)."),
  tier: d(
    "The rank tier (v2 and later): measured (or nothing measured), not_measured (gene not in the data) or not_expressed (measured and not expressed).",
    "Candidates rank within their tier; the tiers come in that order. Derived by the service from protein_expressed, pvalue_expressed, gene_measured and proxy_of; empty for v1, which has no tiers.",
  ),
  direction: d(
    "activated, inhibited or undetermined: activation_state (v3) or the sign of activation_z (v2); empty for v1.",
  ),
} satisfies Record<string, FieldDoc>;

/** Query parameters of the read routes. */
export const QUERY_PARAMS = {
  max_rows: d("How many rows of the target table the status record previews (1–15,000; default 15,000)."),
  max_source_influence_rows: d("How many rows of the source-influence matrix to preview (1–50,000)."),
  max_columns: d("How many columns of the source-influence matrix to preview (1–512)."),
  target: d(
    "Look up another candidate's percentage_degs_significant for target_validation_score (an entity id such as IRF1|PROTEIN).",
  ),
  limit: d("How many items per page."),
  cursor: d("The next_cursor of the previous page, passed back unchanged."),
  offset: d("How many rows of the sorted, filtered table to skip (0-based)."),
  sort: d(
    "The column to sort by (default rank). External accounts may sort by the columns they see: id, score, rank, rank_percentage, is_deg.",
  ),
  order: d("asc (smallest first) or desc; empty cells always come last."),
  q: d("Search: keeps the rows whose gene symbol contains this text (case-insensitive)."),
  tier: d("Keep only the rows of this tier: measured, not_measured or not_expressed (internal accounts)."),
  direction: d(
    "Keep only the rows of this direction: activated, inhibited or undetermined (internal accounts).",
  ),
  fold_proxies: d(
    "true folds single-edge proxies under their hub: a proxy leaves the list and is named in its hub's proxies (internal accounts).",
  ),
  result_set: d(
    "Which result set to page, for a job with several perturbation levels (a prefix such as stim. from the status record); default the first.",
  ),
  top_n_degs: d("How many of the impacted DEGs, best first, to use."),
  deg: d("Keep only the paths to this DEG (an entity id such as GBP1|RNA)."),
  dpi: d("Resolution of the PNG in dots per inch (72–600)."),
} satisfies Record<string, FieldDoc>;

/** Parameters of a submission (the form of POST /v1/predictions, and of a causal analysis). */
export const PARAMETERS = {
  job_type: d(
    "target_id ranks every candidate; target_validation also explains one target with causal paths (needs the split upload and a target).",
  ),
  target: d("The protein to validate, as SYMBOL|PROTEIN (for example STAT1|PROTEIN)."),
  deg_significance_fold: d(
    "How much more than an average protein a candidate must influence a gene to count it (fold over uniform; 1 = more than average, 2 = twice).",
  ),
  min_mean_expression: d(
    "The expression a gene needs in the control cells to count as expressed, in counts per 10,000 (0.1 CP10k = 10 CPM in bulk).",
  ),
  n_randomizations: d(
    "Network randomizations for an empirical p-value (0 = the exact hypergeometric test; more is slower and more robust).",
  ),
  top_n_causal_degs: d("How many DEGs, best explained first, the causal analysis keeps."),
  min_path_fraction: d("A path is kept when it carries at least this fraction of its DEG's influence (0–1)."),
  min_path_probability: d("A path is kept when its probability through the network is at least this (0–1)."),
  max_path_length: d("The longest path, in edges, the causal analysis follows; empty = the model's default."),
  min_degs_fold_uniform: d(
    "Keep only DEGs the target influences at least this fold over uniform; empty = no cut.",
  ),
  prefix: d("For a job with several perturbation levels: which result set (its prefix) to analyse."),
  model_version: d("The model version to score with; empty = the service's default."),
  label: d("A label of your own for the prediction (up to 256 characters)."),
  callback_url: d("A public https URL the service POSTs to when the job ends (see the README)."),
  degs: d("The differentially expressed genes of the split upload: gene symbols, one JSON array."),
  dataset: d("Merged upload: one .h5ad file holding both conditions."),
  dataset_control: d("Split upload: the control cells (.h5ad)."),
  dataset_pert: d("Split upload: the perturbed cells (.h5ad)."),
  condition_column: d(
    "The .h5ad obs column that says which cells are control and which perturbed; empty = found by its name.",
  ),
  control_level: d(
    "The value of that column that marks the control cells; empty = the one named like a control.",
  ),
  sample_column: d(
    "The obs column naming each cell's biological sample (pseudo-bulk replicate); empty = found by name.",
  ),
  donor_column: d("The obs column naming the donor, for a paired design; empty = found by name."),
  cell_type_column: d("The obs column holding each cell's type; empty = found by name."),
  cell_type: d("Merged upload: analyse only the cells of this type (a value of the cell-type column)."),
  species: d(
    "Species of the gene names: human (default) or mouse (mapped to human through one-to-one orthologues).",
  ),
} satisfies Record<string, FieldDoc>;

/**
 * The object shape `shape` with each field's description from `docs` (zod meta). A field
 * without a description is a programming error: the document must describe every field.
 */
export function described<T extends z.ZodRawShape>(shape: T, docs: Record<string, FieldDoc>): T {
  const out: Record<string, z.ZodType> = {};
  for (const [key, schema] of Object.entries(shape)) {
    const s = schema as z.ZodType;
    const meta = s.meta();
    const doc = docs[key];
    // A field that describes itself keeps its own text; a named component keeps its identity
    // (a $ref; OpenAPI 3.0 ignores a $ref's siblings).
    if (meta?.description !== undefined || meta?.id !== undefined) out[key] = s;
    else if (doc) out[key] = s.meta({ description: describe(doc) });
    else throw new Error(`field ${key} has no description in field-docs.ts`);
  }
  return out as unknown as T;
}
