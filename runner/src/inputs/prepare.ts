/**
 * The input checks of model.md §3 in order (reading, count matrix, columns, genes, bulk or
 * single-cell, replicates), then pseudo-bulk aggregation (§4), for the two upload shapes.
 * Each violated check throws a JobFailure with its code and a message saying what to fix.
 */
import { JobFailure, type DatasetOptions } from "@causeway/contract";
import { readAnnData, readLimits, type AnnData } from "../anndata/index.ts";
import { chooseCountMatrix, observationTotals, type CountMatrixChoice } from "./count-matrix.ts";
import {
  chooseColumn,
  chooseDonorColumn,
  columnValues,
  findColumn,
  levelsOf,
  splitConditionLevels,
} from "./columns.ts";
import { cellTypeHints, conditionHints, hintText, sampleHints } from "./column-census.ts";
import { SUBSAMPLED_COLUMN } from "./dataset-files.ts";
import { checkMappedShare, mapGenes, normalizeDegs, type GeneMapping } from "./genes.ts";
import { aggregate, MIN_CELLS, type ArmPart } from "./pseudobulk.ts";
import type { Arm, InputMetadata, PreparedContrast, PreparedSplit, SymbolResolver } from "./types.ts";

/** Options of `prepareMergedDataset`. */
export interface MergedOptions {
  symbols: SymbolResolver;
  /** n_obs cap per condition arm (model.md §18.2); 1000 in production. */
  maxObsPerArm: number;
  /** Columns, control level and cell type the submitter named; detection for the rest. */
  dataset?: Partial<DatasetOptions>;
}

/** Options of `prepareSplitDataset`. */
export interface SplitOptions {
  symbols: SymbolResolver;
  /** n_obs cap per uploaded file; 1000 in production. */
  maxObsPerFile: number;
  /** Columns and cell type the submitter named; detection for the rest. */
  dataset?: Partial<DatasetOptions>;
}

type FileLabel = "dataset" | "control" | "perturbed";

/** One file after reading, the count-matrix choice and the observation drops. */
interface LoadedFile {
  label: FileLabel;
  ad: AnnData;
  choice: CountMatrixChoice;
  totals: Float64Array;
  keep: Uint8Array;
  zeroTotal: number;
  mapping?: GeneMapping;
}

/** "an arm (ctrl)"-style label used in messages. */
const fileText = (label: FileLabel): string => (label === "dataset" ? "dataset" : `${label} file`);

function loadCounts(label: FileLabel, ad: AnnData): LoadedFile {
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

function mapFileGenes(file: LoadedFile, symbols: SymbolResolver): GeneMapping {
  const mapping = mapGenes(file.ad.var, symbols);
  const geneTotals = new Float64Array(file.ad.nVars);
  const m = file.choice.matrix;
  for (let i = 0; i < m.nRows; i++) {
    if (!file.keep[i]) continue;
    for (let q = m.indptr[i]!; q < m.indptr[i + 1]!; q++) geneTotals[m.indices[q]!]! += m.data[q]!;
  }
  checkMappedShare(mapping, geneTotals, fileText(file.label));
  file.mapping = mapping;
  return mapping;
}

/** Symbols of a mapping, sorted by byte order. */
const symbolSet = (m: GeneMapping): Set<string> => new Set(m.symbols.filter((s): s is string => s !== null));
const sorted = (s: Iterable<string>): string[] => [...s].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));

function geneIndex(mapping: GeneMapping, universe: Map<string, number>): Int32Array {
  return Int32Array.from(mapping.symbols, (s) => (s === null ? -1 : (universe.get(s) ?? -1)));
}

/** Counts of the gene mapping for the metadata. */
function geneStats(mappings: GeneMapping[], source: string): InputMetadata["genes"] {
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
function singleLevel(ad: AnnData, column: string | null, obs: number[]): string | null {
  if (!column) return null;
  const values = columnValues(ad.obs, column);
  const levels = levelsOf(obs.map((i) => values[i]!));
  return levels.length === 1 ? levels[0]! : null;
}

/** Cell-type rule (§3.5): at most one level after dropping missing values. */
function checkCellType(file: LoadedFile, column: string): { level: string; missing: number } {
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
        )}${levels.length > 10 ? ", …" : ""}); one prediction analyzes one cell type. Set cell_type to the one to analyse (for example cell_type=${levels[0]}), or subset the data to one cell type.`,
    );
  }
  return { level: levels[0]!, missing };
}

/** Observations of the cell type `cellType` (the form's cell_type) in the cell-type column. */
function selectCellType(
  ad: AnnData,
  column: string | null,
  cellType: string,
  ...exclude: (string | null)[]
): Uint8Array {
  if (column === null) {
    throw new JobFailure(
      "missing_cell_type_column",
      `cell_type=${cellType} needs a cell-type column, and none was found by name (looked for cell_type, celltype, cell_type_label, cell_types, annotation, cell_ontology_class); set cell_type_column.` +
        hintText(cellTypeHints(ad.obs, exclude), ad.obs),
    );
  }
  const values = columnValues(ad.obs, column);
  const out = Uint8Array.from(values, (v) => (v === cellType ? 1 : 0));
  if (!out.includes(1)) {
    const levels = levelsOf(values);
    throw new JobFailure(
      "missing_cell_type_column",
      `cell_type=${cellType}, but the cell-type column "${column}" has no such value (values: ${levels
        .slice(0, 20)
        .map((l) => JSON.stringify(l))
        .join(", ")}${levels.length > 20 ? ", …" : ""}).`,
    );
  }
  return out;
}

/** Arms subsampled by `causeway prepare` (its obs column), with their sizes before and after. */
function subsampledArms(
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

/** Whether some (sample, arm) has more than one observation. */
function hasRepeatedSamples(
  sampleOf: (string | null)[],
  armOf: (i: number) => string | null,
  obs: number[],
): boolean {
  const seen = new Set<string>();
  for (const i of obs) {
    const key = `${armOf(i)}\u0000${sampleOf[i]}`;
    if (seen.has(key)) return true;
    seen.add(key);
  }
  return false;
}

const keptObs = (keep: Uint8Array): number[] => {
  const out: number[] = [];
  for (let i = 0; i < keep.length; i++) if (keep[i]) out.push(i);
  return out;
};

/**
 * Checks and aggregates a merged upload (one file holding both arms). Returns one contrast
 * per perturbation level, each against the single control level.
 */
export async function prepareMergedDataset(
  path: string,
  options: MergedOptions,
): Promise<PreparedContrast[]> {
  const ad = await readAnnData(path, readLimits(null));
  const ds = options.dataset ?? {};
  const conditionCol = chooseColumn(ad.obs, "condition", ds.condition_column, "condition_column");
  const cellTypeCol = chooseColumn(ad.obs, "cellType", ds.cell_type_column, "cell_type_column");
  // The chosen cell type of a merged file: the other observations are not part of the analysis.
  const selected = ds.cell_type ? selectCellType(ad, cellTypeCol, ds.cell_type, conditionCol) : null;
  // §3.1 per arm (§18.2): counted before anything else, as the per-file limit would be.
  if (conditionCol) {
    const counts = new Map<string, number>();
    columnValues(ad.obs, conditionCol).forEach((v, i) => {
      if (v !== null && (!selected || selected[i])) counts.set(v, (counts.get(v) ?? 0) + 1);
    });
    for (const [level, n] of [...counts].sort((a, b) => b[1] - a[1])) {
      if (n > options.maxObsPerArm) {
        throw new JobFailure(
          "too_many_observations",
          `The condition "${level}"${ds.cell_type ? ` of cell type "${ds.cell_type}"` : ""} has ${n.toLocaleString("en")} observations; at most ${options.maxObsPerArm.toLocaleString("en")} per condition are accepted. Subsample cells (\`causeway prepare --max-obs\` keeps every sample).`,
        );
      }
    }
  }
  const file = loadCounts("dataset", ad);
  let otherCellType = 0;
  if (selected) {
    for (let i = 0; i < ad.nObs; i++) {
      if (!selected[i]) {
        if (file.keep[i]) otherCellType++;
        file.keep[i] = 0;
      }
    }
  }
  if (!conditionCol) {
    throw new JobFailure(
      "missing_condition_column",
      `The dataset has no condition column in obs (looked for ${["condition", "perturbation", "treatment", "group", "stim", "status", "genotype"].join(", ")}); set condition_column (and control_level if its control is not named like one).` +
        hintText(conditionHints(ad.obs), ad.obs),
    );
  }
  const condition = columnValues(ad.obs, conditionCol);
  let missingCondition = 0;
  for (let i = 0; i < ad.nObs; i++) {
    if (file.keep[i] && condition[i] === null) {
      file.keep[i] = 0;
      missingCondition++;
    }
  }
  const { control, perturbations } = splitConditionLevels(
    conditionCol,
    levelsOf(condition.filter((_, i) => file.keep[i])),
    ds.control_level ?? null,
  );
  const mapping = mapFileGenes(file, options.symbols);

  const sampleCol = chooseColumn(ad.obs, "sample", ds.sample_column, "sample_column");
  const donorCol = chooseDonorColumn(ad.obs, ds.donor_column, sampleCol);
  const sampleValues = sampleCol ? columnValues(ad.obs, sampleCol) : null;
  let obs = keptObs(file.keep);
  const singleCell =
    cellTypeCol !== null ||
    (sampleValues !== null && hasRepeatedSamples(sampleValues, (i) => condition[i]!, obs));
  if (singleCell && !sampleCol) {
    throw new JobFailure(
      "missing_sample_column",
      `The dataset is single-cell (it has a cell-type column) but no sample column in obs (looked for sample, sample_id, samples, replicate, orig.ident, library_id). Cells are not replicates: set sample_column to the column holding the biological sample of each cell.` +
        hintText(sampleHints(ad.obs, condition, conditionCol), ad.obs),
    );
  }
  if (!singleCell && !sampleCol) {
    const perArm = new Map<string, number>();
    for (const i of obs) perArm.set(condition[i]!, (perArm.get(condition[i]!) ?? 0) + 1);
    const big = [...perArm].find(([, n]) => n > 50);
    if (big) {
      throw new JobFailure(
        "missing_sample_column",
        `The condition "${big[0]}" has ${big[1]} observations but obs has no sample column; this looks like single-cell data without sample annotation. Set sample_column to the column holding the biological sample of each cell.` +
          hintText(sampleHints(ad.obs, condition, conditionCol), ad.obs),
      );
    }
  }
  if (singleCell && !cellTypeCol) {
    throw new JobFailure(
      "missing_cell_type_column",
      "The dataset is single-cell (samples have several cells) but obs has no cell-type column (looked for cell_type, celltype, cell_type_label, cell_types, annotation, cell_ontology_class); a prediction analyzes one cell type: set cell_type_column and cell_type." +
        hintText(cellTypeHints(ad.obs, [conditionCol, sampleCol, donorCol]), ad.obs),
    );
  }
  let cellType: string | null = null;
  let missingCellType = 0;
  if (cellTypeCol) {
    const ct = checkCellType(file, cellTypeCol);
    cellType = ct.level;
    missingCellType = ct.missing;
    obs = keptObs(file.keep);
  }
  let missingSample = 0;
  if (sampleValues) {
    for (const i of obs) if (sampleValues[i] === null) missingSample++;
    obs = obs.filter((i) => sampleValues[i] !== null);
  }

  const genes = sorted(symbolSet(mapping));
  const universe = new Map(genes.map((g, i) => [g, i]));
  const geneOf = geneIndex(mapping, universe);
  const donorValues = donorCol ? columnValues(ad.obs, donorCol) : null;
  const diseaseCol = findColumn(ad.obs, "disease");

  return perturbations.map((level): PreparedContrast => {
    const part = (arm: Arm, lvl: string): ArmPart => {
      const rows = obs.filter((i) => condition[i] === lvl);
      return {
        arm,
        matrix: file.choice.matrix,
        totals: file.totals,
        geneOf,
        obs: rows,
        sampleOf: rows.map((i) => (sampleValues ? sampleValues[i]! : ad.obs.index[i]!)),
        donorOf: donorValues ? rows.map((i) => donorValues[i]!) : null,
      };
    };
    const parts = [part(0, control), part(1, level)];
    const agg = aggregate(genes, parts, singleCell ? MIN_CELLS : 1);
    if (agg.samplesPerArm[0] < 2 || agg.samplesPerArm[1] < 2) {
      throw new JobFailure(
        "insufficient_replicates",
        `Differential expression needs at least 2 samples per condition${singleCell ? ` with at least ${MIN_CELLS} cells each` : ""}; after aggregation "${control}" has ${agg.samplesPerArm[0]} and "${level}" has ${agg.samplesPerArm[1]}${agg.dropped.length > 0 ? ` (dropped for too few cells: ${agg.dropped.map((d) => `${d.sample} (${d.nCells})`).join(", ")})` : ""}. Add biological replicates.`,
      );
    }
    const contrastObs = [...parts[0]!.obs, ...parts[1]!.obs];
    const nCells = agg.pseudoBulk.samples.reduce((n, s) => n + s.nCells, 0);
    const S = agg.pseudoBulk.samples.length;
    let nGenes = 0;
    for (let g = 0; g < genes.length; g++) {
      for (let j = 0; j < S; j++) {
        if (agg.pseudoBulk.counts[g * S + j]! > 0) {
          nGenes++;
          break;
        }
      }
    }
    return {
      controlLevel: control,
      perturbedLevel: level,
      pseudoBulk: agg.pseudoBulk,
      design: agg.design,
      replicated: true,
      logfcMethod: "glm",
      pooled: agg.pooled,
      meanCp10k: agg.meanCp10k,
      summary: {
        cell_type: cellType,
        disease_label: singleLevel(ad, diseaseCol, contrastObs),
        n_cells: nCells,
        n_genes: nGenes,
        n_perturbations: perturbations.length,
        n_degs: null,
      },
      metadata: {
        shape: "merged",
        countMatrix: [{ file: "dataset", name: file.choice.name, rejected: file.choice.rejected }],
        columns: { condition: conditionCol, sample: sampleCol, donor: donorCol, cellType: cellTypeCol },
        controlLevel: control,
        perturbedLevel: level,
        dataKind: singleCell ? "single_cell" : "bulk",
        droppedObservations: {
          zeroTotal: file.zeroTotal,
          missingCondition,
          missingCellType,
          missingSample,
          otherCellType,
        },
        droppedSamples: agg.dropped,
        genes: geneStats([mapping], mapping.source),
        subsampled: subsampledArms(ad, contrastObs, (i) => condition[i]!),
        warnings: agg.warnings,
      },
    };
  });
}

/** Per-file state of a split upload after the column checks. */
interface SplitArm {
  file: LoadedFile;
  obs: number[];
  sampleOf: string[];
  donorOf: (string | null)[] | null;
  singleCell: boolean;
  cellType: string | null;
  missingCellType: number;
  missingSample: number;
  columns: InputMetadata["columns"];
  level: string;
}

function splitArmColumns(file: LoadedFile, warnings: string[], ds: Partial<DatasetOptions>): SplitArm {
  const ad = file.ad;
  const sampleCol = chooseColumn(ad.obs, "sample", ds.sample_column, "sample_column");
  const donorCol = chooseDonorColumn(ad.obs, ds.donor_column, sampleCol);
  const cellTypeCol = chooseColumn(ad.obs, "cellType", ds.cell_type_column, "cell_type_column");
  const conditionCol = chooseColumn(ad.obs, "condition", ds.condition_column, "condition_column");
  if (ds.cell_type) {
    const selected = selectCellType(ad, cellTypeCol, ds.cell_type, sampleCol, donorCol, conditionCol);
    for (let i = 0; i < ad.nObs; i++) if (!selected[i]) file.keep[i] = 0;
  }
  let cellType: string | null = null;
  let missingCellType = 0;
  if (cellTypeCol) ({ level: cellType, missing: missingCellType } = checkCellType(file, cellTypeCol));
  let obs = keptObs(file.keep);
  const sampleValues = sampleCol ? columnValues(ad.obs, sampleCol) : null;
  let missingSample = 0;
  if (sampleValues) {
    missingSample = obs.filter((i) => sampleValues[i] === null).length;
    obs = obs.filter((i) => sampleValues[i] !== null);
  }
  const repeated = sampleValues !== null && hasRepeatedSamples(sampleValues, () => "", obs);
  // Unannotated data with many observations is single-cell (§3.5 guard); split uploads then pool.
  const singleCell = cellTypeCol !== null || repeated || (!sampleCol && obs.length > 50);
  let sampleOf: string[];
  if (sampleValues) sampleOf = obs.map((i) => sampleValues[i]!);
  else if (singleCell) {
    warnings.push(`no_sample_column:${file.label}`);
    sampleOf = obs.map(() => file.label);
  } else sampleOf = obs.map((i) => ad.obs.index[i]!);
  if (singleCell && !cellTypeCol) warnings.push(`no_cell_type_column:${file.label}`);
  const donorValues = donorCol ? columnValues(ad.obs, donorCol) : null;
  const level = (conditionCol ? singleLevel(ad, conditionCol, obs) : null) ?? file.label;
  return {
    file,
    obs,
    sampleOf,
    donorOf: donorValues ? obs.map((i) => donorValues[i]!) : null,
    singleCell,
    cellType,
    missingCellType,
    missingSample,
    columns: { condition: conditionCol, sample: sampleCol, donor: donorCol, cellType: cellTypeCol },
    level,
  };
}

/**
 * Checks and aggregates a split upload: one file per arm and the user's DEG list. Fold
 * changes come from the GLM when both arms keep ≥ 2 replicates, else from pooled counts
 * (§5.9, `logfcMethod`), with a warning rather than a failure.
 */
export async function prepareSplitDataset(
  controlPath: string,
  perturbedPath: string,
  degsJson: string | unknown[],
  options: SplitOptions,
): Promise<PreparedSplit> {
  const limits = readLimits(options.maxObsPerFile);
  const adControl = await readAnnData(controlPath, limits);
  const adPerturbed = await readAnnData(perturbedPath, limits);
  const files = [loadCounts("control", adControl), loadCounts("perturbed", adPerturbed)] as const;
  const mappings = files.map((f) => mapFileGenes(f, options.symbols));
  const degs = normalizeDegs(degsJson, options.symbols);
  const warnings: string[] = [];
  const arms = files.map((f) => splitArmColumns(f, warnings, options.dataset ?? {})) as [SplitArm, SplitArm];
  if (arms[0].cellType !== null && arms[1].cellType !== null && arms[0].cellType !== arms[1].cellType) {
    warnings.push("cell_type_mismatch");
  }
  const inBoth = [...symbolSet(mappings[0]!)].filter((s) => symbolSet(mappings[1]!).has(s));
  const genes = sorted(inBoth);
  const universe = new Map(genes.map((g, i) => [g, i]));
  const parts: ArmPart[] = arms.map((a, arm) => ({
    arm: arm as Arm,
    matrix: a.file.choice.matrix,
    totals: a.file.totals,
    geneOf: geneIndex(mappings[arm]!, universe),
    obs: a.obs,
    sampleOf: a.sampleOf,
    donorOf: a.donorOf,
  }));
  const singleCell = arms[0].singleCell || arms[1].singleCell;
  let agg = aggregate(genes, parts, singleCell ? MIN_CELLS : 1);
  const replicated = agg.samplesPerArm[0] >= 2 && agg.samplesPerArm[1] >= 2;
  if (!replicated) {
    // No GLM: fold changes pool every cell of an arm (§5.9), so no sample is dropped.
    warnings.push("pooled_fold_changes");
    agg = aggregate(genes, parts, 1);
  }
  return {
    controlLevel: arms[0].level,
    perturbedLevel: arms[1].level,
    pseudoBulk: agg.pseudoBulk,
    design: agg.design,
    replicated,
    logfcMethod: replicated ? "glm" : "pooled_cpm",
    pooled: agg.pooled,
    meanCp10k: agg.meanCp10k,
    degs,
    summary: {
      cell_type: null,
      disease_label: null,
      n_cells: null,
      n_genes: null,
      n_perturbations: null,
      n_degs: degs.nDegs,
    },
    metadata: {
      shape: "split",
      countMatrix: files.map((f) => ({ file: f.label, name: f.choice.name, rejected: f.choice.rejected })),
      columns: arms[0].columns,
      controlLevel: arms[0].level,
      perturbedLevel: arms[1].level,
      dataKind: singleCell ? "single_cell" : "bulk",
      droppedObservations: {
        zeroTotal: files[0].zeroTotal + files[1].zeroTotal,
        missingCondition: 0,
        missingCellType: arms[0].missingCellType + arms[1].missingCellType,
        missingSample: arms[0].missingSample + arms[1].missingSample,
        otherCellType: 0,
      },
      droppedSamples: agg.dropped,
      genes: geneStats(mappings, mappings[0]!.source),
      subsampled: arms.flatMap((a) => subsampledArms(a.file.ad, a.obs, () => a.level)),
      warnings: [...warnings, ...agg.warnings],
    },
  };
}
