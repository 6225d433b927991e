/**
 * The input checks of model.md §3, then pseudo-bulk aggregation (§4), for a split upload: one
 * file per arm and the submitter's DEG list. Each violated check throws a JobFailure with its
 * code and a message saying what to fix.
 */
import type { DatasetOptions } from "@causeway/contract";
import { readAnnData, readLimits } from "../anndata/index.ts";
import { checkArmLabels, checkDistinctFiles, type ArmLabels } from "./arm-labels.ts";
import { sampleHints } from "./column-census.ts";
import { chooseColumn, chooseDonorColumn, columnValues, levelsOf } from "./columns.ts";
import { dataKindOf, missingSampleColumn } from "./data-kind.ts";
import { normalizeDegs } from "./genes.ts";
import { aggregate, MIN_CELLS, type ArmPart } from "./pseudobulk.ts";
import type { Arm, InputMetadata, PreparedSplit, SymbolResolver } from "./types.ts";
import {
  type LoadedFile,
  loadCounts,
  mapFileGenes,
  symbolSet,
  sorted,
  geneIndex,
  geneStats,
  checkCellType,
  selectCellType,
  subsampledArms,
  keptObs,
  fileText,
} from "./prepare-files.ts";

/** Options of `prepareSplitDataset`. */
export interface SplitOptions {
  symbols: SymbolResolver;
  /** n_obs cap per uploaded file; 1000 in production. */
  maxObsPerFile: number;
  /** Columns and cell type the submitter named; detection for the rest. */
  dataset?: Partial<DatasetOptions>;
}

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
  labels: ArmLabels;
  /** The file's single condition level, else the file's role. */
  level: string;
}

/**
 * Samples of a single-cell file without a sample column: all its cells pooled as one (§3.5),
 * unless its donor column names samples. Pooling those would throw away replicates the file
 * has, so the file fails as a merged file does and the message names the column to set.
 */
function pooledSample(
  file: LoadedFile,
  because: string,
  donorOf: (string | null)[] | null,
  conditionCol: string | null,
  obs: number[],
  warnings: string[],
): string[] {
  if (donorOf !== null && levelsOf(donorOf).length >= 2) {
    const arm = Array.from({ length: file.ad.nObs }, (_, i): string | null =>
      file.keep[i] ? file.label : null,
    );
    throw missingSampleColumn(
      `The ${fileText(file.label)}`,
      because,
      sampleHints(file.ad.obs, arm, conditionCol),
      file.ad.obs,
    );
  }
  warnings.push(`no_sample_column:${file.label}`);
  return obs.map(() => file.label);
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
  const kind = dataKindOf(
    ad.obs,
    { sample: sampleCol, cellType: cellTypeCol, condition: conditionCol },
    sampleValues,
    { of: () => file.label, text: () => `the ${fileText(file.label)}` },
    obs,
  );
  const donorValues = donorCol ? columnValues(ad.obs, donorCol) : null;
  const donorOf = donorValues ? obs.map((i) => donorValues[i]!) : null;
  let sampleOf: string[];
  if (sampleValues) sampleOf = obs.map((i) => sampleValues[i]!);
  else if (kind.singleCell) sampleOf = pooledSample(file, kind.because, donorOf, conditionCol, obs, warnings);
  else sampleOf = obs.map((i) => ad.obs.index[i]!);
  if (kind.singleCell && !cellTypeCol) warnings.push(`no_cell_type_column:${file.label}`);
  const conditionValues = conditionCol ? columnValues(ad.obs, conditionCol) : null;
  const levels = conditionValues ? levelsOf(obs.map((i) => conditionValues[i]!)) : [];
  return {
    file,
    obs,
    sampleOf,
    donorOf,
    singleCell: kind.singleCell,
    cellType,
    missingCellType,
    missingSample,
    columns: { condition: conditionCol, sample: sampleCol, donor: donorCol, cellType: cellTypeCol },
    labels: { file: file.label, column: conditionCol, levels },
    level: levels.length === 1 ? levels[0]! : file.label,
  };
}

/**
 * Checks and aggregates a split upload: one file per arm and the user's DEG list. The files
 * must be two different arms as their labels tell (arm-labels.ts). Fold changes come from the
 * GLM when both arms keep ≥ 2 replicates, else from pooled counts (§5.9, `logfcMethod`), with
 * a warning rather than a failure.
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
  checkDistinctFiles(...files);
  const mappings = files.map((f) => mapFileGenes(f, options.symbols));
  const degs = normalizeDegs(degsJson, options.symbols);
  const warnings: string[] = [];
  const arms = files.map((f) => splitArmColumns(f, warnings, options.dataset ?? {})) as [SplitArm, SplitArm];
  warnings.push(...checkArmLabels(arms[0].labels, arms[1].labels));
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
    // No GLM: fold changes pool every cell of an arm (§5.9), so no sample is dropped, and the
    // design (with its donor warnings) plays no part.
    warnings.push("pooled_fold_changes");
    agg = { ...aggregate(genes, parts, 1), warnings: [] };
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
