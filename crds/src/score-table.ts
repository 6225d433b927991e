/**
 * The score table, `target_scores.tsv` (model.md §7, §13): its columns per model version and what
 * each column means. The runner writes the columns in this order; the API reads, pages and
 * documents them (`/openapi.json`, "How to read", the web app's tooltips) from the same lists, so
 * a column a model version adds is described where it is declared or the contract's tests fail.
 */
import type { ScoringVersion } from "./scoring-versions.ts";

/** A field's description: one plain line, and optional detail (scale, model version, caveats). */
export interface FieldDoc {
  summary: string;
  detail?: string;
}

const doc = (summary: string, detail?: string): FieldDoc =>
  detail === undefined ? { summary } : { summary, detail };

/** The columns every model version writes (v1's table, model.md §7). */
export const BASE_SCORE_COLUMNS = [
  "id",
  "node_type",
  "score",
  "rank",
  "rank_percentage",
  "pvalue",
  "z_score",
  "is_deg",
  "protein_expressed",
  "n_degs_significant",
  "percentage_degs_significant",
  "k_expected",
  "n_universe_significant",
  "mean_log2_fold_degs",
  "qvalue",
  "pvalue_method",
] as const;

/** Artifact-only columns model v2 adds (model.md §7.6 allows extra columns there). */
export const V2_EXTRA_COLUMNS = [
  "pvalue_propagated",
  "pvalue_direct",
  "n_direct_targets",
  "n_direct_target_degs",
  "activation_z",
  "pvalue_direction",
  "ulm_t",
  "pvalue_ulm",
  "proxy_of",
  "gene_measured",
  "pvalue_expressed",
  "evidence",
  "combine",
  "unmeasured",
] as const;

/** Artifact-only columns model v3 adds. */
export const V3_EXTRA_COLUMNS = [
  "pvalue_data",
  "prior",
  "prior_logit",
  "pvalue_propagated",
  "pvalue_tf_binding",
  "pvalue_tf_coexpression",
  "pvalue_kinase",
  "n_layers",
  "pvalue_direct",
  "n_direct_targets",
  "n_direct_target_degs",
  "ulm_t",
  "activation_z",
  "pvalue_direction",
  "activation_state",
  "proxy_of",
  "gene_measured",
  "pvalue_expressed",
] as const;

/** Artifact-only columns model v4 adds: how sure it is and why a candidate is there, then v3's. */
export const V4_EXTRA_COLUMNS = [
  "probability",
  "in_prediction_set",
  "prediction_set_size",
  "perturbation_type",
  "list_kind",
  "candidate_class",
  "candidate_source",
  "raw_influence_z",
  "ulm_table_t",
  "pvalue_ppi",
  ...V3_EXTRA_COLUMNS,
] as const;

/** The extra columns of each model version, after the base columns. */
export const EXTRA_SCORE_COLUMNS = {
  v1: [],
  v2: V2_EXTRA_COLUMNS,
  v3: V3_EXTRA_COLUMNS,
  v4: V4_EXTRA_COLUMNS,
} as const satisfies Record<ScoringVersion, readonly string[]>;

export type ScoreColumn =
  (typeof BASE_SCORE_COLUMNS)[number] | (typeof EXTRA_SCORE_COLUMNS)[ScoringVersion][number];

/** Every column of a model version's score table, in the order the runner writes them. */
export function scoreColumns(version: ScoringVersion): readonly ScoreColumn[] {
  return [...BASE_SCORE_COLUMNS, ...EXTRA_SCORE_COLUMNS[version]];
}

/** What each column of the score table means, for every model version that writes it. */
export const SCORE_COLUMN_DOCS: Record<ScoreColumn, FieldDoc> = {
  id: doc(
    "The candidate as an entity id, SYMBOL|PROTEIN (IRF1|PROTEIN is the protein, IRF1|RNA its transcript).",
  ),
  node_type: doc("The entity type of the candidate: PROTEIN for every candidate of models v1 to v4."),
  score: doc(
    "How well the candidate explains the data; higher is better. Its scale depends on the model version.",
    "v1 and v2: −log10 of the candidate's p-value (2 means p = 0.01). v3: a log-odds score, prior_logit plus the weighted evidence (each evidence p-value enters as ln(1 + −log10 p), the ULM activity as ln(1 + |ulm_t|)); it orders candidates but is not a p-value. v4: the same kind of log-odds score with more evidence and weights that depend on perturbation_type and list_kind; probability is its calibrated form. The table's order is by rank, which from v2 on also uses the tiers.",
  ),
  rank: doc(
    "0-based position in the ranking: 0 is the best candidate, 1 the second (the web app shows rank + 1).",
    "v1: ties in score are broken by z_score, then n_degs_significant, then id. In v2 and v3 the tier comes first (see tier).",
  ),
  rank_percentage: doc(
    "The rank as a fraction of the table, from 0 (best) to 1 (worst): rank ÷ (candidates − 1).",
    "It is a fraction, not a percentage: 0.01 means the top 1 %.",
  ),
  pvalue: doc(
    "The candidate's p-value: the chance of evidence at least this strong if the DEGs were random genes.",
    "v1: hypergeometric over network-propagated influence (or the randomization p-value with n_randomizations > 0). v2: Cauchy combination of the propagated and direct-target tests. v3: pvalue_data, the data-only combination (the prior never enters a p-value).",
  ),
  z_score: doc(
    "How many standard deviations the DEGs the candidate reaches exceed what a random gene set would give.",
  ),
  is_deg: doc(
    "Whether the candidate's own gene is among the job's DEGs (often true in knock-down experiments; not used by the score).",
  ),
  protein_expressed: doc(
    "Whether the candidate's gene is expressed in the control cells (mean ≥ min_mean_expression counts per 10,000); null when not measured.",
  ),
  n_degs_significant: doc(
    "Number of DEGs the candidate significantly influences through the network (a count of genes).",
  ),
  percentage_degs_significant: doc(
    "The same as a percentage of the mapped DEGs, on a 0–100 scale (unlike rank_percentage, which is 0–1).",
  ),
  k_expected: doc(
    "The number of DEGs a random gene set of the same size would be expected to reach (a count).",
  ),
  n_universe_significant: doc(
    "Number of genes of the universe the candidate significantly influences (a count).",
  ),
  mean_log2_fold_degs: doc(
    "Mean influence fold over uniform on the DEGs the candidate reaches (log2); empty when it reaches none.",
  ),
  qvalue: doc(
    "The p-value corrected for testing every candidate (false discovery rate).",
    "v1: Benjamini–Hochberg over pvalue (or over the randomization p-values). v2 and v3: Benjamini–Yekutieli over pvalue, which is more conservative.",
  ),
  pvalue_method: doc("How pvalue was computed: hypergeometric, or randomization when n_randomizations > 0."),
  pvalue_propagated: doc(
    "v2 and v3: the v1-style network-propagated p-value (on the v2 bundle), one of the combined tests.",
  ),
  pvalue_direct: doc(
    "v2 and v3: p-value of the overlap between the candidate's direct transcriptional targets and the DEGs; empty without a target in the universe.",
  ),
  n_direct_targets: doc(
    "v2 and v3: number of the candidate's direct transcriptional targets in the universe.",
  ),
  n_direct_target_degs: doc("v2 and v3: how many of those direct targets are DEGs."),
  activation_z: doc(
    "v2 and v3: the direction score (IPA-style activation z): positive means the DEGs move as if the candidate were activated, negative inhibited.",
    "Reported only; it does not change the rank. Empty without a signed edge into a DEG with a fold change.",
  ),
  activation_state: doc(
    "v3: activated, inhibited or undetermined: the sign of activation_z when pvalue_direction is below 0.05.",
  ),
  pvalue_direction: doc("v2 and v3: two-sided p-value of activation_z."),
  ulm_t: doc(
    "v2 and v3: activity of the candidate as a transcription factor (univariate linear model t on its signed targets).",
    "v3 fits it to the DEGs' signs (+1 up, −1 down, 0 elsewhere) and uses ln(1 + |t|) in the score, never as a p-value.",
  ),
  pvalue_ulm: doc("v2: p-value of ulm_t; empty with fewer than 5 signed targets measured."),
  proxy_of: doc(
    "A single-edge proxy: a protein whose only way into the network is one edge into a hub; this names the hub.",
    "A proxy copies its hub's evidence and never ranks above it; the hub is what the table reports (proxies are folded under it).",
  ),
  gene_measured: doc(
    "Whether the job's data measured the candidate's gene; empty for a bare DEG list (which measures nothing).",
  ),
  pvalue_expressed: doc(
    "For a gene below the expression threshold: the chance of so few reads if it were at the threshold; below 0.05 the candidate is ranked as not expressed.",
  ),
  evidence: doc("v2: which evidence the score combines (propagated, direct, or both)."),
  combine: doc("v2: how the p-values were combined (for example cauchy)."),
  unmeasured: doc("v2: where candidates whose gene was not measured rank (after_measured, or keep)."),
  pvalue_data: doc(
    "v3: the p-value from the data alone, before the prior: the truncated Cauchy combination of pvalue_propagated and the layer p-values.",
  ),
  prior: doc(
    "v3 and v4: the probability of being the driver before this dataset is read: the softmax of prior_logit over the candidates (it sums to 1 over the table).",
  ),
  prior_logit: doc(
    "v3 and v4: the prior on a log-odds scale. v3: a weighted sum of ln(1 + out-degree) and the number of TF and kinase evidence layers that hold a gene set of the candidate. v4: the class part of its score (where the candidate sits in the network and how well studied it is), weighed for the job's perturbation_type.",
    "It is what makes some kinds of protein start ahead; score adds the data's evidence to it.",
  ),
  probability: doc(
    "v4: the probability that this protein is the driver of the perturbation, given that the driver is one of the candidates (it sums to 1 over the table).",
    "Calibrated on held-out development experiments (runner/docs/model-v4.md): among candidates given 0.2, about one in five was the driver. For a ligand experiment the right answers are the ligand and its receptors, so several rows may share the credit.",
  ),
  in_prediction_set: doc(
    "v4: whether the candidate is in the 90 % prediction set: the smallest set of top candidates that held the driver in 90 % of comparable development experiments.",
    "A large set means the data say little: read the top rows as leads, not answers.",
  ),
  prediction_set_size: doc(
    "v4: how many candidates the 90 % prediction set holds (the same on every row). Small (tens) when the model is sure; thousands when it is not.",
  ),
  perturbation_type: doc(
    "v4: the perturbation type the scores were weighed for: the submitter's perturbation_type, or unknown when none was given.",
  ),
  list_kind: doc(
    "v4: what the job's DEG evidence was: a DE table (table), signed DEGs (up and down), one-sided DEGs (all one way) or an unsigned list.",
  ),
  candidate_class: doc(
    "v4: where the candidate sits in the network: transcription_factor, signaling_apex (a cascade head, e.g. a ligand), below_apex (reached from one, e.g. a receptor), signaling_N_steps (N signalling steps above the nearest TF), or outside_network (named only by an evidence layer: no path, no graph, no causal analysis).",
  ),
  candidate_source: doc(
    "v4: why the protein is a candidate: network (it has a path to an RNA node of the interactome), or, for a protein the network cannot reach, the kinds of the model version's evidence layers that name it joined by + (ppi: a protein–protein interaction network such as HuRI; kinase, tf_binding, tf_coexpression: a gene-set library). Such a row's evidence is its layers' alone.",
  ),
  raw_influence_z: doc(
    "v4: the candidate's total network influence on the DEGs (ln of the summed influence), standardised over the candidates; not a test, a magnitude.",
  ),
  ulm_table_t: doc(
    "v4: ln(1 + |t|) of the candidate's activity fitted to the DE table's fold changes over every measured gene (univariate linear model on its signed targets); empty without a DE table.",
  ),
  pvalue_ppi: doc(
    "v4: evidence from the protein–protein interaction layers: the Fisher p of the DEGs among the candidate's interaction partners (over the job's universe); empty when the model version has no such layer or it does not hold the candidate.",
  ),
  pvalue_tf_binding: doc(
    "v3: evidence from the TF-binding gene-set layers (ChEA3-style): each layer's Fisher p of the DEGs against the candidate's best set (Bonferroni over its sets), combined over layers by a truncated Cauchy combination; empty when no layer holds a set of the candidate.",
  ),
  pvalue_tf_coexpression: doc(
    "v3: the same evidence from the TF co-expression layers; empty when no such layer holds a set of the candidate.",
  ),
  pvalue_kinase: doc(
    "v3: the same evidence from the kinase–substrate layers (KEA3-style); empty when no such layer holds a set of the candidate.",
  ),
  n_layers: doc(
    "v3: how many evidence layers (TF and kinase gene-set libraries of the model version) hold a set of the candidate; it enters prior_logit.",
  ),
};
