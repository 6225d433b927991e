/**
 * The opening sections of "How to read the results" (the web app's page and
 * docs/how-to-read.md); the field-by-field text is in field-docs.ts.
 */
export interface Section {
  id: string;
  title: string;
  paragraphs: string[];
}

export const HOW_TO_READ_INTRO: Section[] = [
  {
    id: "what",
    title: "What a prediction answers",
    paragraphs: [
      "causeway compares perturbed with control cells, finds the differentially expressed genes (DEGs), and asks of every protein in its signed, directed interaction network: if this protein were the cause, how well would its downstream influence explain these DEGs? The ranked target table is that answer, one row per candidate protein.",
      "A target validation also explains one named protein: which DEGs it reaches (the impacted DEGs), by which causal paths through which intermediary proteins, drawn as the causal graph.",
    ],
  },
  {
    id: "rank",
    title: "Ranks, scores and q-values",
    paragraphs: [
      "rank is 0-based in the files and the API: 0 is the best candidate (the web app shows rank + 1). rank_percentage is the rank as a fraction from 0 (best) to 1 (worst), so 0.01 means the top 1 % of candidates; percentage_degs_significant, in contrast, is on a 0–100 scale.",
      "What score means depends on the model version. In v1 and v2 it is −log10 of the candidate's p-value (2 means p = 0.01). In v3 and v4 it is a log-odds score: the prior (prior_logit, what was known about the candidate before this dataset) plus the weighted evidence of the data; it orders the candidates but is not a p-value, and pvalue (= pvalue_data) is the data's evidence alone.",
      "Model v1 reports Benjamini–Hochberg q-values over its hypergeometric (or randomization) p-values; models v2 and v3 report Benjamini–Yekutieli q-values over their combined p-value, which are more conservative. The model version of a prediction is in its summary; the columns each version writes are listed below.",
    ],
  },
  {
    id: "sure",
    title: "How sure it is (model v4)",
    paragraphs: [
      "probability is the model's probability that this protein is the driver, given that the driver is one of the candidates; it was calibrated on experiments the model was not fitted on, so of the rows given 0.3, about three in ten were right. in_prediction_set marks the smallest set of most probable candidates that held the driver in 90 % of such experiments; prediction_set_size is its size. A large set means the data say little: read it as “the answer is somewhere in these”, not as a confident top 10. When the model was fitted on few experiments like the job's (its perturbation type and kind of DEG list), the job's warnings say so (few_development_experiments): its probabilities then lean on other kinds of experiment.",
      "Model v4 also ranks proteins the network cannot reach, when the model version has evidence layers that name them (a protein–protein interaction network such as HuRI, or a TF or kinase library): candidate_source says why a protein is in the table (network, or the kinds of the layers that name it), and candidate_class is outside_network for them. Their evidence is their layers' alone (pvalue_ppi and the library p-values), and no causal path leads from them, so they have no causal graph. One without a layer p-value below 0.05 is ranked after every network candidate of its tier, whatever its probability: nothing in the data points to it, and its place would be its class prior's alone (it may still be in the 90 % set, which is made of the most probable candidates).",
    ],
  },
  {
    id: "tiers",
    title: "Tiers and proxies",
    paragraphs: [
      "From model v2 on, candidates are ranked in three tiers: measured (the data measured and expressed the gene, or the job had no measurements), then not measured (the gene is absent from the data), then not expressed (measured and below the expression threshold). Within a tier the p-value orders them.",
      "A single-edge proxy is a protein whose only way into the network is one edge into a hub (NELFB → JUN): it inherits the hub's evidence, so it never ranks above the hub. The table folds proxies under their hub (“+3 proxies”).",
    ],
  },
  {
    id: "graph",
    title: "The causal graph",
    paragraphs: [
      "The target is the hexagon on the left, the DEGs are the rounded boxes on the right, intermediary proteins sit in between at their distance from the target. Node colour is the gene's log2 fold change (blue down, red up, grey not measured). Edges are green for activation, red (flat end) for inhibition, grey when the sign is unknown; dashed edges are transcriptional (protein → its target gene). Thicker edges carry more of the target's influence.",
    ],
  },
  {
    id: "units",
    title: "Units",
    paragraphs: [
      "Fold changes are log2 (perturbed over control). Expression thresholds are in counts per 10,000 (CP10k; 0.1 CP10k equals 10 counts per million). Times are UTC. Counts (n_…) are numbers of genes.",
    ],
  },
];
