/**
 * What the input checks hand to differential expression and to the rest of the job
 * (model.md §3–§4, §5.9, §5.10). Matrices are gene-major: value (gene g, sample j) sits at
 * `g * nSamples + j`.
 */
import type { DatasetSummary } from "@causeway/contract";
import type { MatrixName } from "../anndata/index.ts";
import type { SymbolTable } from "../symbols/index.ts";

/** The part of the HGNC SymbolTable the checks use. */
export type SymbolResolver = Pick<SymbolTable, "resolve" | "resolveEnsembl"> &
  Partial<Pick<SymbolTable, "ambiguousSymbols" | "ambiguousEnsembl">>;

/** 0 = control arm, 1 = perturbed arm. */
export type Arm = 0 | 1;

/** One pseudo-bulk sample: the unit (sample, arm) of model.md §3.3/§4. */
export interface PseudoBulkSample {
  /** Sample id; suffixed with `|<level>` only when the same id occurs in both arms. */
  id: string;
  /** The sample id as in the file. */
  sample: string;
  arm: Arm;
  /** Donor (blocking factor) of the sample, or null when the design is not paired. */
  donor: string | null;
  /** Observations summed into it (cells; 1 for bulk). */
  nCells: number;
  /** Σ of its raw counts over all genes of the file, before symbol mapping and gene filtering. */
  librarySize: number;
}

/** Raw-count sums per gene × sample. */
export interface PseudoBulkMatrix {
  /** Normalized HGNC symbols, sorted by byte order. */
  genes: string[];
  samples: PseudoBulkSample[];
  /** Gene-major counts, length genes.length × samples.length. */
  counts: Float64Array;
}

/**
 * The design of the contrast perturbed vs control; assignable to the DE step's `DesignOptions`
 * (runner/src/de), as `PseudoBulkMatrix` is to its `PseudoBulk`.
 */
export interface ContrastDesign {
  /** True: `~ donor + condition`; false: `~ condition`. */
  paired: boolean;
  /** Donor levels (sorted) when paired, else []. */
  donors: string[];
}

/** Why an observation-level or sample-level item was left out. */
export interface DroppedSample {
  sample: string;
  arm: Arm;
  nCells: number;
}

/** Metadata recorded in run_metadata.json. */
export interface InputMetadata {
  shape: "merged" | "split";
  /** Chosen count matrix per file (merged: one entry). */
  countMatrix: {
    file: "dataset" | "control" | "perturbed";
    name: MatrixName;
    rejected: { name: MatrixName; reason: string }[];
  }[];
  columns: { condition: string | null; sample: string | null; donor: string | null; cellType: string | null };
  controlLevel: string;
  perturbedLevel: string;
  dataKind: "single_cell" | "bulk";
  droppedObservations: {
    zeroTotal: number;
    missingCondition: number;
    missingCellType: number;
    missingSample: number;
    /** Observations of other cell types than the form's cell_type. */
    otherCellType: number;
  };
  droppedSamples: DroppedSample[];
  genes: {
    identifierSource: string;
    nInput: number;
    nResolved: number;
    nUnresolved: number;
    /** Input genes folded into another gene with the same symbol. */
    nMerged: number;
    unresolvedExamples: string[];
    /** The first identifiers as in the file (a species check reads their spelling). */
    sampleIdentifiers: string[];
  };
  /** Arms that `causeway prepare` subsampled: observations before and kept. */
  subsampled: { arm: string; from: number; to: number }[];
  /**
   * Codes such as `no_sample_column`, `cell_type_mismatch`, `donor_not_paired`,
   * `paired_by_sample_ids`, `arm_labels_unclear`, `pooled_fold_changes`; a `:control` or
   * `:perturbed` suffix names the file of a split upload.
   */
  warnings: string[];
}

/** The normalized DEG list of a split upload (model.md §3.4 rule 6). */
export interface DegList {
  /** Distinct resolved symbols in first-seen order. */
  symbols: string[];
  /** Entries that did not resolve (trimmed, distinct case-insensitively), ambiguous ones excepted. */
  unresolved: string[];
  /** Entries left out because they name several genes (an Ensembl id of two symbols, a shared alias). */
  ambiguous: { input: string; symbols: string[] }[];
  /** Distinct supplied symbols after normalization, mapped or not: DatasetSummary.n_degs. */
  nDegs: number;
}

/** One contrast (one result set): everything DE and scoring need. */
export interface PreparedContrast {
  controlLevel: string;
  perturbedLevel: string;
  pseudoBulk: PseudoBulkMatrix;
  design: ContrastDesign;
  /** True when both arms keep ≥ 2 samples: fold changes from the GLM, else pooled CPM (§5.9). */
  replicated: boolean;
  logfcMethod: "glm" | "pooled_cpm";
  /**
   * Per-arm sums over every kept observation (also those of samples dropped for min_cells),
   * for pooled fold changes: gene-major, column 0 control, column 1 perturbed.
   */
  pooled: { counts: Float64Array; librarySize: [number, number] };
  /** mean_cp10k per gene (aligned with pseudoBulk.genes) and arm (§5.10). */
  meanCp10k: { control: Float64Array; perturbed: Float64Array };
  summary: DatasetSummary;
  metadata: InputMetadata;
}

/** A prepared split upload: one contrast and its DEG list. */
export interface PreparedSplit extends PreparedContrast {
  degs: DegList;
}
