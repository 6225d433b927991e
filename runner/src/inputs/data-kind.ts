/**
 * Bulk or single-cell (model.md §3.5), decided by one rule for a merged file and for each file
 * of a split pair: by how many observations each (sample, arm) holds. A cell-type column decides
 * only when there is no sample column, since bulk exports often carry a constant one.
 */
import { JobFailure } from "@causeway/contract";
import type { DataFrame } from "../anndata/index.ts";
import { COLUMN_NAMES } from "./columns.ts";
import { hintText, sampleIdHints } from "./column-census.ts";
import { MIN_CELLS } from "./pseudobulk.ts";

/** More observations than this in one arm, without a sample column, are cells (§3.5 guard). */
export const BULK_ARM_MAX = 50;

/** How a file's observations fall into arms, for the rule and its messages. */
export interface ArmsOf {
  /** The arm of observation i: a condition level, or the file's role in a split pair. */
  of: (i: number) => string;
  /** The arm in a sentence: `the condition "ctrl"`, `the control file`. */
  text: (arm: string) => string;
}

/** Bulk, or single-cell and why the observations were read as cells (for messages). */
export type DataKind = { singleCell: false } | { singleCell: true; because: string };

const BULK: DataKind = { singleCell: false };

/** The largest group of `obs` by `keyOf`: its size and one of its observations. */
function largestGroup(obs: number[], keyOf: (i: number) => string): { n: number; at: number } {
  const sizes = new Map<string, number>();
  let best = { n: 0, at: -1 };
  for (const i of obs) {
    const key = keyOf(i);
    const n = (sizes.get(key) ?? 0) + 1;
    sizes.set(key, n);
    if (n > best.n) best = { n, at: i };
  }
  return best;
}

/**
 * The data kind of the observations `obs`. With a sample column, one observation per
 * (sample, arm) is bulk whatever other columns say. Repeated ids where no sample reaches
 * MIN_CELLS observations would drop every sample as too small: in data without a cell-type
 * column that is a sample column numbering replicates or batches of bulk data, and a
 * `missing_sample_column` failure says so.
 */
export function dataKindOf(
  frame: DataFrame,
  columns: { sample: string | null; cellType: string | null; condition: string | null },
  sampleValues: (string | null)[] | null,
  arms: ArmsOf,
  obs: number[],
): DataKind {
  if (columns.sample !== null && sampleValues !== null) {
    const largest = largestGroup(obs, (i) => `${arms.of(i)}\u0000${sampleValues[i]}`);
    if (largest.n <= 1) return oneObservationPerSample(frame, columns, arms, obs);
    if (columns.cellType === null && largest.n < MIN_CELLS) {
      const id = sampleValues[largest.at]!;
      throw new JobFailure(
        "missing_sample_column",
        `The sample column "${columns.sample}" repeats ids within ${arms.text(arms.of(largest.at))} ("${id}" ${largest.n} times), but no sample has the ${MIN_CELLS} cells a single-cell sample needs: this looks like bulk data, where each observation is its own sample. Set sample_column to a column with one id per observation; if "${columns.sample}" numbers the donor or culture that both arms share, add such a column and set donor_column=${columns.sample}.` +
          hintText(sampleIdHints(frame, arms.of, obs, [columns.sample, columns.condition]), frame),
      );
    }
    return { singleCell: true, because: "samples have several observations" };
  }
  if (columns.cellType !== null) return { singleCell: true, because: "it has a cell-type column" };
  const largestArm = largestGroup(obs, arms.of);
  if (largestArm.n > BULK_ARM_MAX) {
    return {
      singleCell: true,
      because: `${arms.text(arms.of(largestArm.at))} has ${largestArm.n} observations, more than bulk samples`,
    };
  }
  return BULK;
}

/**
 * One observation per sample is bulk, unless the file also names cell types and holds more
 * observations per arm than bulk data has: then the "sample" ids are cell ids, and reading each
 * cell as a sample would test cells as if they were replicates.
 */
function oneObservationPerSample(
  frame: DataFrame,
  columns: { sample: string | null; cellType: string | null; condition: string | null },
  arms: ArmsOf,
  obs: number[],
): DataKind {
  const largestArm = largestGroup(obs, arms.of);
  if (columns.cellType === null || largestArm.n <= BULK_ARM_MAX) return BULK;
  throw new JobFailure(
    "missing_sample_column",
    `The sample column "${columns.sample}" gives each of the ${largestArm.n} observations of ${arms.text(arms.of(largestArm.at))} its own id, and the file names cell types: these look like cell ids, not biological samples. Set sample_column to the column holding the sample (donor, well, library) of each cell.` +
      hintText(sampleIdHints(frame, arms.of, obs, [columns.sample, columns.condition]), frame),
  );
}

/**
 * §3.5: cells are not replicates, so single-cell observations need the column that names their
 * biological sample. `subject` is what lacks it ("The dataset", "The control file").
 */
export function missingSampleColumn(
  subject: string,
  because: string,
  hints: string[],
  frame: DataFrame,
): JobFailure {
  return new JobFailure(
    "missing_sample_column",
    `${subject} is single-cell (${because}) but obs has no sample column (looked for ${COLUMN_NAMES.sample.join(", ")}). Cells are not replicates: set sample_column to the column holding the biological sample of each cell.` +
      hintText(hints, frame),
  );
}
