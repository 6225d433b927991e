/**
 * "How to read the results": one plain-words description of every field of the status record,
 * every column of the target table and every query and form parameter. The same text is the
 * `description` of each field in /openapi.json (through `described`), the tooltips and the
 * "How to read" page of the web app, and api/docs/how-to-read.md (generated from this module by
 * `npm run docs:how-to-read`; a unit test keeps the file in step).
 */
import type { z } from "zod";
import { SCORE_COLUMN_DOCS, type FieldDoc } from "@causeway/contract";

export type { FieldDoc };

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
    "Things the service noticed about the inputs or the model that did not stop the job (code and sentence), for example unrecognised genes, or a model v4 fitted on few experiments like this one.",
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
 * Columns of the target table: every column of target_scores.tsv of every model version (their
 * text is the contract's, beside the column lists), and the two the service derives.
 */
export const TARGET_COLUMNS = {
  ...SCORE_COLUMN_DOCS,
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
  max_path_length: d(
    "The longest path the causal analysis follows, in nodes (2 = one edge); empty = the model version's default. A long path with a low min_path_probability can exceed the search's work budget: the job then fails with path_search_too_large and is not billed.",
  ),
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
  perturbation_type: d(
    "What was done to the cells: ligand, drug, knockout, knockdown, overexpression or unknown (the default when empty).",
    "Model v4 uses it to weigh which kinds of protein are likely drivers (a ligand experiment is more often explained by a ligand or its receptor, a knockdown by a regulator); earlier versions ignore it. Leave it empty when unsure: v4 then weighs every kind as it learned across all experiments.",
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
