/**
 * `causeway prepare`: a local .h5ad looked at the way a job would look at it (obs columns and
 * their levels, the roles detection picks or the user names, which matrix holds raw counts,
 * observations per arm and cell type), and the files the service accepts written from it: one
 * cell type's control and perturbed files (the split shape) and the two together (the merged
 * shape), each arm subsampled to the observation cap with a fixed seed, keeping every sample.
 */
import { mkdir } from "node:fs/promises";
import { join } from "node:path";
import { JobFailure, type DatasetOptions } from "@causeway/contract";
import {
  csrRows,
  frameRows,
  readAnnData,
  readLimits,
  writeAnnData,
  type AnnData,
  type DataFrame,
  type FrameColumn,
} from "../anndata/index.ts";
import { chooseColumn, chooseDonorColumn, columnValues, levelsOf, splitConditionLevels } from "./columns.ts";
import { chooseCountMatrix, prng } from "./count-matrix.ts";

export type DatasetFields = Partial<Omit<DatasetOptions, "species">>;

export interface ColumnSummary {
  name: string;
  nLevels: number;
  /** The first levels with their observation counts (most frequent first). */
  levels: { level: string; n: number }[];
}

export interface DatasetInspection {
  nObs: number;
  nVars: number;
  columns: ColumnSummary[];
  /** Which obs column plays each role (named by the user or detected), null when none. */
  roles: { condition: string | null; sample: string | null; donor: string | null; cellType: string | null };
  /** Which matrix holds raw counts (`X`, `layers/counts`, …) and why others were passed over; or the problem. */
  counts: { matrix: string; rejected: string[] } | { problem: string };
  control: string | null;
  perturbations: string[];
  /** Observations per condition level, overall and per cell type. */
  perArm: Record<string, number>;
  perCellType: Record<string, Record<string, number>>;
  /**
   * `merged`: both arms in one file (a condition column with two levels or more); `split_arm`:
   * one arm only, as `--control` or `--perturbed` of a split pair; `unknown`: no condition column.
   */
  shape: "merged" | "split_arm" | "unknown";
  /** What detection decided that the user may not expect (a column not used, and why). */
  notes: string[];
  /** What stops the file from being used as it is, and what to set. */
  problems: string[];
}

function summarize(frame: DataFrame, name: string): ColumnSummary {
  const counts = new Map<string, number>();
  for (const v of columnValues(frame, name)) if (v !== null) counts.set(v, (counts.get(v) ?? 0) + 1);
  const levels = [...counts]
    .sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1))
    .map(([level, n]) => ({ level, n }));
  return { name, nLevels: levels.length, levels: levels.slice(0, 12) };
}

function countBy(values: (string | null)[], rows: Iterable<number>): Record<string, number> {
  const out: Record<string, number> = {};
  for (const i of rows) {
    const v = values[i];
    if (v !== null && v !== undefined) out[v] = (out[v] ?? 0) + 1;
  }
  return out;
}

const allRows = (n: number): number[] => Array.from({ length: n }, (_, i) => i);

function roles(ad: AnnData, f: DatasetFields): DatasetInspection["roles"] {
  const sample = chooseColumn(ad.obs, "sample", f.sample_column, "sample_column");
  return {
    condition: chooseColumn(ad.obs, "condition", f.condition_column, "condition_column"),
    sample,
    donor: chooseDonorColumn(ad.obs, f.donor_column, sample),
    cellType: chooseColumn(ad.obs, "cellType", f.cell_type_column, "cell_type_column"),
  };
}

/** Why no donor column is used, when one was found by name (the job decides the same way). */
function donorNotes(ad: AnnData, f: DatasetFields, r: DatasetInspection["roles"]): string[] {
  if (r.donor !== null || r.sample === null) return [];
  const detected = chooseColumn(ad.obs, "donor", f.donor_column, "donor_column");
  if (detected !== r.sample) return [];
  return [
    `donor: none; \`${r.sample}\` is the sample column, so it is not also taken as the donor. ` +
      `Samples with the same id in both arms still pair the design; name a separate donor column with donor_column.`,
  ];
}

/** What a job would see in the file. */
export async function inspectDataset(path: string, fields: DatasetFields = {}): Promise<DatasetInspection> {
  const ad = await readAnnData(path, readLimits(null));
  const r = roles(ad, fields);
  const problems: string[] = [];
  let counts: DatasetInspection["counts"];
  try {
    const choice = chooseCountMatrix(ad, "file");
    counts = { matrix: choice.name, rejected: choice.rejected.map((x) => `${x.name}: ${x.reason}`) };
  } catch (err) {
    counts = { problem: err instanceof Error ? err.message : String(err) };
    problems.push(counts.problem);
  }
  let control: string | null = null;
  let perturbations: string[] = [];
  let perArm: Record<string, number> = {};
  const perCellType: Record<string, Record<string, number>> = {};
  let shape: DatasetInspection["shape"] = "unknown";
  if (r.condition === null)
    problems.push(
      "no condition column was found by name: as a merged file (--dataset) it needs condition_column; " +
        "as one arm of a split pair (--control or --perturbed with --degs) it needs none",
    );
  else {
    const condition = columnValues(ad.obs, r.condition);
    perArm = countBy(condition, allRows(ad.nObs));
    const levels = levelsOf(condition);
    shape = levels.length === 1 ? "split_arm" : "merged";
    // One level is one arm of a split pair: the merged file's control-level advice does not apply.
    if (shape === "split_arm")
      problems.push(
        `one arm only (${r.condition} is "${levels[0]}" throughout): submit it as --control or --perturbed ` +
          `of a split pair, with the other arm's file and --degs or --degs-table; control_level does not apply`,
      );
    else
      try {
        ({ control, perturbations } = splitConditionLevels(
          r.condition,
          levels,
          fields.control_level ?? null,
        ));
      } catch (err) {
        problems.push(err instanceof Error ? err.message : String(err));
      }
    if (r.cellType !== null) {
      const cellType = columnValues(ad.obs, r.cellType);
      for (const ct of levelsOf(cellType))
        perCellType[ct] = countBy(
          condition,
          allRows(ad.nObs).filter((i) => cellType[i] === ct),
        );
    }
  }
  if (r.sample === null) problems.push("no sample column was found by name: set sample_column");
  if (r.cellType !== null && Object.keys(perCellType).length > 1 && !fields.cell_type)
    problems.push(`${Object.keys(perCellType).length} cell types: choose one with cell_type`);
  return {
    nObs: ad.nObs,
    nVars: ad.nVars,
    columns: [...ad.obs.columns.keys()].map((n) => summarize(ad.obs, n)),
    roles: r,
    counts,
    control,
    perturbations,
    perArm,
    perCellType,
    shape,
    notes: donorNotes(ad, fields, r),
    problems,
  };
}

export interface WriteOptions {
  fields: DatasetFields;
  /** Required when the condition has several perturbed levels. */
  perturbedLevel?: string | null;
  /** Observations per arm at most (the service's cap is 1,000). */
  maxObs: number;
  seed: number;
  outDir: string;
}

export interface WrittenInputs {
  control: string;
  perturbed: string;
  dataset: string;
  controlLevel: string;
  perturbedLevel: string;
  cellType: string | null;
  arms: { level: string; nBefore: number; nAfter: number; samples: Record<string, number> }[];
}

/**
 * `n` of `rows` (n < rows.length), every sample kept: each sample gets its share of `n`
 * (at least one observation), drawn with a seeded generator, in file order.
 */
export function subsampleKeepingSamples(
  rows: number[],
  sampleOf: (string | null)[],
  n: number,
  seed: number,
): number[] {
  const bySample = new Map<string, number[]>();
  for (const r of rows) {
    const s = sampleOf[r] ?? "";
    let list = bySample.get(s);
    if (!list) bySample.set(s, (list = []));
    list.push(r);
  }
  const samples = [...bySample.keys()].sort();
  if (samples.length > n)
    throw new JobFailure(
      "too_many_observations",
      `${samples.length} samples cannot keep one observation each under a cap of ${n}.`,
    );
  const quota = new Map(
    samples.map((s) => [s, Math.max(1, Math.floor((n * bySample.get(s)!.length) / rows.length))]),
  );
  let total = [...quota.values()].reduce((a, b) => a + b, 0);
  // Rounding: hand out or take back single observations, largest samples first.
  const bySize = [...samples].sort(
    (a, b) => bySample.get(b)!.length - bySample.get(a)!.length || (a < b ? -1 : 1),
  );
  for (let k = 0; total !== n; k = (k + 1) % bySize.length) {
    const s = bySize[k]!;
    const q = quota.get(s)!;
    if (total < n && q < bySample.get(s)!.length) {
      quota.set(s, q + 1);
      total++;
    } else if (total > n && q > 1) {
      quota.set(s, q - 1);
      total--;
    }
  }
  const rand = prng(seed);
  const out: number[] = [];
  for (const s of samples) {
    const list = [...bySample.get(s)!];
    const q = quota.get(s)!;
    // Partial Fisher–Yates: the first q entries are a uniform sample.
    for (let i = 0; i < q; i++) {
      const j = i + Math.floor(rand() * (list.length - i));
      [list[i], list[j]] = [list[j]!, list[i]!];
    }
    out.push(...list.slice(0, q));
  }
  return out.sort((a, b) => a - b);
}

/**
 * Column that records, per observation, how many observations its arm had before subsampling;
 * the job reads it back into the `subsampled` warning.
 */
export const SUBSAMPLED_COLUMN = "causeway_subsampled_from";

function canonicalObs(
  ad: AnnData,
  rows: number[],
  r: DatasetInspection["roles"],
  armSizeOf: Map<number, number> | null,
): DataFrame {
  const sub = frameRows(ad.obs, rows);
  const columns = new Map<string, FrameColumn>();
  const put = (name: string, from: string | null) => {
    if (from !== null) columns.set(name, sub.columns.get(from)!);
  };
  put("condition", r.condition);
  put("sample", r.sample);
  put("donor", r.donor);
  put("cell_type", r.cellType);
  if (armSizeOf)
    columns.set(SUBSAMPLED_COLUMN, {
      kind: "numbers",
      values: Float64Array.from(rows, (i) => armSizeOf.get(i)!),
    });
  return { index: sub.index, columns, skipped: [] };
}

/** Writes control.h5ad, perturbed.h5ad and dataset.h5ad of one cell type into `outDir`. */
export async function writeCellTypeInputs(path: string, o: WriteOptions): Promise<WrittenInputs> {
  const ad = await readAnnData(path, readLimits(null));
  const r = roles(ad, o.fields);
  if (r.condition === null)
    throw new JobFailure(
      "missing_condition_column",
      "No condition column was found by name: set condition_column.",
    );
  const condition = columnValues(ad.obs, r.condition);
  const armLevels = levelsOf(condition);
  if (armLevels.length === 1)
    throw new JobFailure(
      "condition_control_ambiguous",
      `${path} holds one arm only (${r.condition} is "${armLevels[0]}" throughout): it is one file of a split pair ` +
        `already; submit it as --control or --perturbed with the other arm's file and --degs or --degs-table.`,
    );
  const { control, perturbations } = splitConditionLevels(
    r.condition,
    armLevels,
    o.fields.control_level ?? null,
  );
  const perturbed = o.perturbedLevel ?? (perturbations.length === 1 ? perturbations[0]! : null);
  if (perturbed === null || !perturbations.includes(perturbed))
    throw new JobFailure(
      "condition_control_ambiguous",
      `Choose the perturbed level with --perturbed-level (levels: ${perturbations.join(", ")}).`,
    );
  let rows = allRows(ad.nObs);
  const cellType = o.fields.cell_type ?? null;
  if (r.cellType !== null) {
    const values = columnValues(ad.obs, r.cellType);
    const levels = levelsOf(values);
    if (cellType === null && levels.length > 1)
      throw new JobFailure(
        "multiple_cell_types",
        `The file holds ${levels.length} cell types (${levels.join(", ")}): choose one with --cell-type.`,
      );
    if (cellType !== null && !levels.includes(cellType))
      throw new JobFailure(
        "missing_cell_type_column",
        `"${cellType}" is not a value of ${r.cellType} (values: ${levels.join(", ")}).`,
      );
    if (cellType !== null) rows = rows.filter((i) => values[i] === cellType);
  } else if (cellType !== null) {
    throw new JobFailure(
      "missing_cell_type_column",
      "No cell-type column was found by name: set cell_type_column.",
    );
  }
  const choice = chooseCountMatrix(ad, "file");
  const sampleOf = r.sample === null ? ad.obs.index.map(() => null) : columnValues(ad.obs, r.sample);
  const arms: WrittenInputs["arms"] = [];
  const armRows = [control, perturbed].map((level, a) => {
    const all = rows.filter((i) => condition[i] === level);
    const kept = all.length > o.maxObs ? subsampleKeepingSamples(all, sampleOf, o.maxObs, o.seed + a) : all;
    arms.push({ level, nBefore: all.length, nAfter: kept.length, samples: countBy(sampleOf, kept) });
    return kept;
  });
  await mkdir(o.outDir, { recursive: true });
  const subsampled = arms.some((a) => a.nAfter < a.nBefore);
  const armSizeOf = subsampled
    ? new Map(armRows.flatMap((kept, a) => kept.map((i) => [i, arms[a]!.nBefore] as const)))
    : null;
  const write = async (name: string, which: number[]) => {
    const file = join(o.outDir, name);
    await writeAnnData(file, {
      X: csrRows(choice.matrix, which),
      obs: canonicalObs(ad, which, r, armSizeOf),
      var: choice.genes,
    });
    return file;
  };
  return {
    control: await write("control.h5ad", armRows[0]!),
    perturbed: await write("perturbed.h5ad", armRows[1]!),
    dataset: await write("dataset.h5ad", [...armRows[0]!, ...armRows[1]!]),
    controlLevel: control,
    perturbedLevel: perturbed,
    cellType,
    arms,
  };
}
