/**
 * The input checks of model.md §3 in order (reading, count matrix, columns, genes, bulk or
 * single-cell, replicates), then pseudo-bulk aggregation (§4), for a merged upload: one file
 * holding both arms. Each violated check throws a JobFailure with its code and a message saying
 * what to fix.
 */
import { JobFailure, type DatasetOptions } from "@causeway/contract";
import { readAnnData, readLimits } from "../anndata/index.ts";
import {
  chooseColumn,
  chooseDonorColumn,
  COLUMN_NAMES,
  columnValues,
  findColumn,
  levelsOf,
  splitConditionLevels,
} from "./columns.ts";
import { cellTypeHints, conditionHints, hintText, sampleHints } from "./column-census.ts";
import { aggregate, MIN_CELLS, type ArmPart } from "./pseudobulk.ts";
import type { Arm, PreparedContrast, SymbolResolver } from "./types.ts";
import {
  loadCounts,
  mapFileGenes,
  symbolSet,
  sorted,
  geneIndex,
  geneStats,
  singleLevel,
  checkCellType,
  selectCellType,
  subsampledArms,
  keptObs,
} from "./prepare-files.ts";
import { dataKindOf, missingSampleColumn } from "./data-kind.ts";

/** Options of `prepareMergedDataset`. */
export interface MergedOptions {
  symbols: SymbolResolver;
  /** n_obs cap per condition arm (model.md §18.2); 1000 in production. */
  maxObsPerArm: number;
  /** Columns, control level and cell type the submitter named; detection for the rest. */
  dataset?: Partial<DatasetOptions>;
}

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
      `The dataset has no condition column in obs (looked for ${COLUMN_NAMES.condition.join(", ")}); set condition_column (and control_level if its control is not named like one).` +
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
    () => hintText(conditionHints(ad.obs, 2), ad.obs),
  );
  const mapping = mapFileGenes(file, options.symbols);

  const sampleCol = chooseColumn(ad.obs, "sample", ds.sample_column, "sample_column");
  const donorCol = chooseDonorColumn(ad.obs, ds.donor_column, sampleCol);
  const sampleValues = sampleCol ? columnValues(ad.obs, sampleCol) : null;
  let obs = keptObs(file.keep);
  const kind = dataKindOf(
    ad.obs,
    { sample: sampleCol, cellType: cellTypeCol, condition: conditionCol },
    sampleValues,
    { of: (i) => condition[i]!, text: (level) => `the condition "${level}"` },
    obs,
  );
  if (kind.singleCell && !sampleCol) {
    throw missingSampleColumn(
      "The dataset",
      kind.because,
      sampleHints(ad.obs, condition, conditionCol),
      ad.obs,
    );
  }
  if (kind.singleCell && !cellTypeCol) {
    throw new JobFailure(
      "missing_cell_type_column",
      `The dataset is single-cell (${kind.because}) but obs has no cell-type column (looked for ${COLUMN_NAMES.cellType.join(", ")}); a prediction analyzes one cell type: set cell_type_column and cell_type.` +
        hintText(cellTypeHints(ad.obs, [conditionCol, sampleCol, donorCol]), ad.obs),
    );
  }
  const singleCell = kind.singleCell;
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
