/**
 * What both upload shapes share in the input checks of model.md §3: a file read with its count
 * matrix chosen, its genes mapped, its cell type selected and its arms subsampled.
 */
import { JobFailure } from "@causeway/contract";
import { type AnnData } from "../anndata/index.ts";
import { chooseCountMatrix, observationTotals, type CountMatrixChoice } from "./count-matrix.ts";
import { columnValues, levelsOf } from "./columns.ts";
import { cellTypeHints, hintText } from "./column-census.ts";
import { SUBSAMPLED_COLUMN } from "./dataset-files.ts";
import { checkMappedShare, mapGenes, type GeneMapping } from "./genes.ts";
import type { InputMetadata, SymbolResolver } from "./types.ts";

export type FileLabel = "dataset" | "control" | "perturbed";

/** One file after reading, the count-matrix choice and the observation drops. */
export interface LoadedFile {
  label: FileLabel;
  ad: AnnData;
  choice: CountMatrixChoice;
  totals: Float64Array;
  keep: Uint8Array;
  zeroTotal: number;
  mapping?: GeneMapping;
}

/** "an arm (ctrl)"-style label used in messages. */
export const fileText = (label: FileLabel): string => (label === "dataset" ? "dataset" : `${label} file`);

export function loadCounts(label: FileLabel, ad: AnnData): LoadedFile {
  const choice = chooseCountMatrix(ad, fileText(label));
  const totals = observationTotals(choice.matrix);
  const keep = new Uint8Array(ad.nObs);
  let zeroTotal = 0;
  for (let i = 0; i < ad.nObs; i++) {
    if (totals[i]! > 0) keep[i] = 1;
    else zeroTotal++;
  }
  return { label, ad, choice, totals, keep, zeroTotal };
}

export function mapFileGenes(file: LoadedFile, symbols: SymbolResolver): GeneMapping {
  const mapping = mapGenes(file.choice.genes, symbols);
  const m = file.choice.matrix;
  const geneTotals = new Float64Array(m.nCols);
  for (let i = 0; i < m.nRows; i++) {
    if (!file.keep[i]) continue;
    for (let q = m.indptr[i]!; q < m.indptr[i + 1]!; q++) geneTotals[m.indices[q]!]! += m.data[q]!;
  }
  checkMappedShare(mapping, geneTotals, fileText(file.label));
  file.mapping = mapping;
  return mapping;
}

/** Symbols of a mapping, sorted by byte order. */
export const symbolSet = (m: GeneMapping): Set<string> =>
  new Set(m.symbols.filter((s): s is string => s !== null));
export const sorted = (s: Iterable<string>): string[] => [...s].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));

export function geneIndex(mapping: GeneMapping, universe: Map<string, number>): Int32Array {
  return Int32Array.from(mapping.symbols, (s) => (s === null ? -1 : (universe.get(s) ?? -1)));
}

/** Counts of the gene mapping for the metadata. */
export function geneStats(mappings: GeneMapping[], source: string): InputMetadata["genes"] {
  let nInput = 0;
  let nResolved = 0;
  const unresolved: string[] = [];
  const distinct = new Set<string>();
  for (const m of mappings) {
    nInput += m.symbols.length;
    m.symbols.forEach((s, g) => {
      if (s === null) unresolved.push(m.identifiers[g]!);
      else {
        nResolved++;
        distinct.add(s);
      }
    });
  }
  const perFileDistinct = mappings.reduce((n, m) => n + symbolSet(m).size, 0);
  return {
    identifierSource: source,
    nInput,
    nResolved,
    nUnresolved: unresolved.length,
    nMerged: nResolved - perFileDistinct,
    unresolvedExamples: unresolved.slice(0, 20),
    sampleIdentifiers: mappings.flatMap((m) => m.identifiers.slice(0, 100)).slice(0, 200),
  };
}

/** Single-level value of an obs column over kept observations, else null. */
export function singleLevel(ad: AnnData, column: string | null, obs: number[]): string | null {
  if (!column) return null;
  const values = columnValues(ad.obs, column);
  const levels = levelsOf(obs.map((i) => values[i]!));
  return levels.length === 1 ? levels[0]! : null;
}

/** Cell-type rule (§3.5): at most one level after dropping missing values. */
export function checkCellType(file: LoadedFile, column: string): { level: string; missing: number } {
  const values = columnValues(file.ad.obs, column);
  let missing = 0;
  for (let i = 0; i < values.length; i++) {
    if (file.keep[i] && values[i] === null) {
      file.keep[i] = 0;
      missing++;
    }
  }
  const levels = levelsOf(values.filter((_, i) => file.keep[i]));
  if (levels.length !== 1) {
    if (levels.length === 0) {
      throw new JobFailure(
        "missing_cell_type_column",
        `The cell-type column "${column}" of the ${fileText(file.label)} holds no values.`,
      );
    }
    throw new JobFailure(
      "multiple_cell_types",
      `The ${fileText(file.label)} holds ${levels.length} cell types in "${column}" (${levels
        .slice(0, 10)
        .map((l) => `"${l}"`)
        .join(
          ", ",
        )}${levels.length > 10 ? ", …" : ""}); one prediction analyzes one cell type. Set cell_type to the one to analyse (for example cell_type=${JSON.stringify(levels[0])}), or subset the data to one cell type.`,
    );
  }
  return { level: levels[0]!, missing };
}

/** Observations of the cell type `cellType` (the form's cell_type) in the cell-type column. */
export function selectCellType(
  ad: AnnData,
  column: string | null,
  cellType: string,
  ...exclude: (string | null)[]
): Uint8Array {
  if (column === null) {
    throw new JobFailure(
      "missing_cell_type_column",
      `cell_type=${JSON.stringify(cellType)} needs a cell-type column, and none was found by name (looked for cell_type, celltype, cell_type_label, cell_types, annotation, cell_ontology_class); set cell_type_column.` +
        hintText(cellTypeHints(ad.obs, exclude), ad.obs),
    );
  }
  const values = columnValues(ad.obs, column);
  const out = Uint8Array.from(values, (v) => (v === cellType ? 1 : 0));
  if (!out.includes(1)) {
    const levels = levelsOf(values);
    throw new JobFailure(
      "missing_cell_type_column",
      `cell_type=${JSON.stringify(cellType)}, but the cell-type column "${column}" has no such value (values: ${levels
        .slice(0, 20)
        .map((l) => JSON.stringify(l))
        .join(", ")}${levels.length > 20 ? ", …" : ""}).`,
    );
  }
  return out;
}

/** Arms subsampled by `causeway prepare` (its obs column), with their sizes before and after. */
export function subsampledArms(
  ad: AnnData,
  obs: number[],
  armOf: (i: number) => string,
): InputMetadata["subsampled"] {
  const col = ad.obs.columns.get(SUBSAMPLED_COLUMN);
  if (!col || col.kind !== "numbers") return [];
  const arms = new Map<string, { from: number; to: number }>();
  for (const i of obs) {
    const arm = armOf(i);
    const a = arms.get(arm) ?? { from: 0, to: 0 };
    a.from = Math.max(a.from, col.values[i]!);
    a.to++;
    arms.set(arm, a);
  }
  return [...arms].filter(([, a]) => a.from > a.to).map(([arm, a]) => ({ arm, ...a }));
}

export const keptObs = (keep: Uint8Array): number[] => {
  const out: number[] = [];
  for (let i = 0; i < keep.length; i++) if (keep[i]) out.push(i);
  return out;
};
