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

/** One line per artifact saying what it holds: the download lists and "How to read" show it. */
export const ARTIFACT_DESCRIPTIONS: Record<ArtifactName, string> = {
  [ARTIFACTS.runMetadata]:
    "How the job ran: the model version, every parameter, input checks, warnings and timings (JSON).",
  [ARTIFACTS.pseudobulkCounts]:
    "Raw counts summed per sample (gene × pseudo-bulk sample, gzipped tab-separated); uploads with cells only.",
  [ARTIFACTS.pseudobulkSamples]:
    "One row per pseudo-bulk sample: its arm, donor, number of cells, library size and size factor.",
  [ARTIFACTS.degsTable]:
    "The differential-expression table: every tested gene with its fold change, p-value, adjusted p-value and whether it is a DEG.",
  [ARTIFACTS.mappedDegs]:
    "The DEGs the scoring used, as gene symbols in the influence matrix's column order (JSON).",
  [ARTIFACTS.targetScores]:
    "The ranked candidate table, best first: every column is described under “The target table” in How to read.",
  [ARTIFACTS.sourceInfluenceMatrix]:
    "How strongly each candidate (row) reaches each DEG (column) through the network (NaN where it cannot), as a NumPy .npy float32 matrix: open it with numpy.load. Rows are the network's candidates in table order (model v4's proteins outside the network have none).",
  [ARTIFACTS.sourceInfluenceIds]: "The row and column ids of the influence matrix, in its order (JSON).",
  [ARTIFACTS.randomizationNull]:
    "With n_randomizations > 0: each candidate's null distribution from matched random DEG sets (mean, sd, exceedances).",
  [ARTIFACTS.targetValidation]:
    "The validated target's rank, rank_percentage, score, p-value, z-score and share of DEGs it reaches (JSON).",
  [ARTIFACTS.degsImpactedTable]:
    "The DEGs the target explains, best first: the DEG, how strongly the target reaches it, its fold change and order (tab-separated).",
  [ARTIFACTS.degsImpacted]: "The same impacted DEGs as a JSON list.",
  [ARTIFACTS.causalPaths]:
    "Every kept causal path from the target to an impacted DEG: the entities on it, edge signs, path probability, score and sign consistency (tab-separated).",
  [ARTIFACTS.causalGraph]: "The causal graph of the target as a PNG image.",
  [ARTIFACTS.roCrate]:
    "The provenance record of the run (a Workflow Run RO-Crate, JSON-LD): each input and model file with its SHA-256, every parameter, the software version and timings.",
  [ARTIFACTS.causalGraphInputs]:
    "The nodes and edges the causal-graph image draws, for redrawing it elsewhere (JSON).",
};

/** The folder holding every attempt of a job (its output prefix, with one trailing slash). */
/** Media types of the files jobs read and write, by extension (S3's Content-Type, downloads, RO-Crate). */
const MEDIA_TYPES: Record<string, string> = {
  ".h5ad": "application/x-hdf5",
  ".json": "application/json",
  ".tsv": "text/tab-separated-values",
  ".gz": "application/gzip",
  ".png": "image/png",
  ".npy": "application/octet-stream",
};

/** The media type of a file by its name's extension; application/octet-stream when unknown. */
export const mediaTypeOf = (name: string): string =>
  MEDIA_TYPES[/\.[a-z0-9]+$/.exec(name)?.[0] ?? ""] ?? "application/octet-stream";

export function jobOutputFolder(outputPrefix: string): string {
  return `${outputPrefix.replace(/\/+$/, "")}/`;
}

/**
 * Where one attempt of a job writes its artifacts: one folder per attempt under the job's
 * output folder, so a retried pod never overwrites another attempt's files.
 */
export function attemptPrefix(outputPrefix: string, attempt: string): string {
  return `${jobOutputFolder(outputPrefix)}${attempt}`;
}

/** The longest file-safe level kept whole in a result-set prefix. */
const MAX_PREFIX_LEVEL = 64;

/**
 * Result-set prefixes of a merged upload's perturbation levels (§12.2): with one level none
 * (""), else the level made file-safe followed by ".". Two levels can become the same file-safe
 * name (`IFN-α` and `IFN-β` are both `IFN-_`) and a level can be longer than an object name
 * allows, so such a level keeps a shortened name plus a hash of the level itself: every level
 * gets its own prefix, and the same level the same prefix on every run.
 */
export function resultSetPrefixes(levels: readonly string[]): Map<string, string> {
  if (levels.length <= 1) return new Map(levels.map((l) => [l, ""]));
  const safe = (l: string) => l.replace(/[^A-Za-z0-9._-]/g, "_");
  const count = new Map<string, number>();
  for (const l of new Set(levels)) count.set(safe(l), (count.get(safe(l)) ?? 0) + 1);
  const out = new Map<string, string>();
  for (const l of levels) {
    const s = safe(l);
    const plain = count.get(s) === 1 && s.length > 0 && s.length <= MAX_PREFIX_LEVEL;
    out.set(l, plain ? `${s}.` : `${s.slice(0, MAX_PREFIX_LEVEL - 9)}_${fnv1a(l)}.`);
  }
  return out;
}

/** 32-bit FNV-1a of a string's UTF-16 units, as 8 hex digits: a short, stable, browser-safe tag. */
function fnv1a(s: string): string {
  let h = 0x811c9dc5;
  for (let i = 0; i < s.length; i++) h = Math.imul(h ^ s.charCodeAt(i), 0x01000193) >>> 0;
  return h.toString(16).padStart(8, "0");
}
