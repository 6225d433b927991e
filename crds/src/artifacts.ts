/** Artifact basenames of model.md §13; result sets prefix them with `prefix` (§12.2). */
export const ARTIFACTS = {
  runMetadata: "run_metadata.json",
  pseudobulkCounts: "pseudobulk_counts.tsv.gz",
  pseudobulkSamples: "pseudobulk_samples.tsv",
  degsTable: "degs.tsv",
  mappedDegs: "mapped_degs.json",
  targetScores: "target_scores.tsv",
  sourceInfluenceMatrix: "source_influence_matrix.npy",
  sourceInfluenceIds: "source_influence_matrix.ids.json",
  randomizationNull: "randomization_null.tsv",
  targetValidation: "target_validation.json",
  degsImpactedTable: "degs_impacted.tsv",
  degsImpacted: "degs_impacted.json",
  causalPaths: "causal_paths.tsv",
  causalGraph: "causal_graph.png",
  causalGraphInputs: "causal_graph_inputs.json",
  roCrate: "ro-crate-metadata.json",
} as const;

export type ArtifactName = (typeof ARTIFACTS)[keyof typeof ARTIFACTS];

/** Result-set prefix for a perturbation level: file-safe level followed by "." (§12.2). */
export function resultSetPrefix(level: string | null): string {
  return level === null ? "" : `${level.replace(/[^A-Za-z0-9._-]/g, "_")}.`;
}
