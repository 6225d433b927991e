/** Input checks and pseudo-bulk aggregation of uploaded datasets (model.md §3, §4). */
export {
  prepareMergedDataset,
  prepareSplitDataset,
  type MergedOptions,
  type SplitOptions,
} from "./prepare.ts";
export { MIN_CELLS } from "./pseudobulk.ts";
export { normalizeDegs } from "./genes.ts";
export { rawCountProblem } from "./count-matrix.ts";
export type * from "./types.ts";
export {
  inspectDataset,
  writeCellTypeInputs,
  subsampleKeepingSamples,
  type DatasetInspection,
  type DatasetFields,
  type WrittenInputs,
} from "./dataset-files.ts";
export { columnValues } from "./columns.ts";
