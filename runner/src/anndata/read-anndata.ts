/**
 * The runner's AnnData reader: obs, var, raw.var and every count-matrix candidate of
 * model.md §3.2 (X, raw.X, each layer), as plain typed arrays. All reads happen inside one
 * synchronous h5wasm session (see h5-file.ts) after the structural walk and the size checks of
 * layout.ts.
 */
import { invalidH5ad } from "./errors.ts";
import { h5Module, withH5File } from "./h5-file.ts";
import { takeInventory } from "./inventory.ts";
import { DEFAULT_READ_LIMITS, DEFAULT_TREE_LIMITS, type ReadLimits, type TreeLimits } from "./limits.ts";
import {
  describeLayout,
  type AnnDataLayout,
  type ColumnLayout,
  type FrameLayout,
  type MatrixLayout,
  type MatrixName,
} from "./layout.ts";
import { H5T, readIntegers, readNumbers, readRows, readStrings, type H5Reader } from "./read-values.ts";

/** A sparse matrix in compressed-row form: row i holds indices/data[indptr[i]..indptr[i+1]). */
export interface CsrMatrix {
  nRows: number;
  nCols: number;
  indptr: Int32Array;
  indices: Int32Array;
  data: Float64Array;
}

/** One dataframe column. Categorical codes −1 mean missing; numbers use NaN for missing. */
export type FrameColumn =
  | { kind: "categorical"; codes: Int32Array; categories: string[] }
  | { kind: "strings"; values: (string | null)[] }
  | { kind: "numbers"; values: Float64Array };

/** obs, var or raw.var. */
export interface DataFrame {
  index: string[];
  columns: Map<string, FrameColumn>;
  /** Columns present but not interpretable (2-D arrays, compound types). */
  skipped: string[];
}

/** The parts of an AnnData file the runner uses. */
export interface AnnData {
  nObs: number;
  nVars: number;
  obs: DataFrame;
  var: DataFrame;
  /** raw.var, the genes of raw.X's columns, when raw.X is among `matrices`. */
  rawVar: DataFrame | null;
  /** Every count-matrix candidate of the file (X, raw.X, each layer), in the order they are tried. */
  candidates: MatrixName[];
  /**
   * The candidates read, as observations × genes CSR; raw.X's columns are raw.var's genes,
   * every other matrix's are var's.
   */
  matrices: Map<MatrixName, CsrMatrix>;
  /** Why the other candidates were not read: malformed, or beyond the size limits. */
  unread: Map<MatrixName, string>;
  /** Names of all layers. */
  layers: string[];
}

/**
 * Reads an .h5ad file for the runner; every problem with the file is a JobFailure
 * (`invalid_h5ad`, or `too_many_observations` when n_obs exceeds `limits.maxObs`).
 */
export async function readAnnData(
  path: string,
  limits: ReadLimits = DEFAULT_READ_LIMITS,
  tree: TreeLimits = DEFAULT_TREE_LIMITS,
): Promise<AnnData> {
  const module = await h5Module();
  return withH5File(module, path, (file) => {
    const inventory = takeInventory(module, file, tree);
    const r: H5Reader = { module, file, inventory, maxAttributeBytes: tree.maxAttributeBytes };
    const layout = describeLayout(r, limits);
    return readWithLayout(r, layout);
  });
}

/**
 * Describes an .h5ad file (dimensions, columns, layers) without reading matrix data. It reads
 * the obs/var indexes (to check their text) and one element of every matrix array, which is
 * what exposes raw data stored in other files (HDF5 external storage), invisible in metadata.
 */
export async function inspectAnnData(
  path: string,
  limits: ReadLimits = DEFAULT_READ_LIMITS,
  tree: TreeLimits = DEFAULT_TREE_LIMITS,
): Promise<AnnDataLayout> {
  const module = await h5Module();
  return withH5File(module, path, (file) => {
    const inventory = takeInventory(module, file, tree);
    const r: H5Reader = { module, file, inventory, maxAttributeBytes: tree.maxAttributeBytes };
    const layout = describeLayout(r, limits);
    readStrings(r, layout.obs.index);
    readStrings(r, layout.var.index);
    for (const m of layout.matrices.values()) {
      const arrays = m.encoding === "dense" ? [] : [m.data, m.indices, m.indptr];
      if (m.encoding === "dense") readRows(r, m.node, 0, 1);
      for (const a of arrays)
        if ((a.kind === "dataset" ? (a.meta.shape?.[0] ?? 0) : 0) > 0) readNumbers(r, a, 0, 1);
    }
    return layout;
  });
}

function readWithLayout(r: H5Reader, layout: AnnDataLayout): AnnData {
  const obs = readFrame(r, layout.obs);
  const vars = readFrame(r, layout.var);
  const rawVar = layout.rawVar ? readFrame(r, layout.rawVar) : null;
  const matrices = new Map<MatrixName, CsrMatrix>();
  for (const [name, m] of layout.matrices) matrices.set(name, readMatrix(r, m));
  return {
    nObs: layout.nObs,
    nVars: layout.nVars,
    obs,
    var: vars,
    rawVar,
    candidates: layout.candidates,
    matrices,
    unread: layout.unread,
    layers: layout.layers,
  };
}

function readFrame(r: H5Reader, layout: FrameLayout): DataFrame {
  const index = readStrings(r, layout.index);
  const columns = new Map<string, FrameColumn>();
  for (const col of layout.columns) columns.set(col.name, readColumn(r, col));
  return { index, columns, skipped: layout.skipped };
}

function readColumn(r: H5Reader, col: ColumnLayout): FrameColumn {
  switch (col.encoding) {
    case "categorical": {
      const categories =
        col.categories.kind === "dataset" && col.categories.meta.type === H5T.string
          ? readStrings(r, col.categories)
          : Array.from(readNumbers(r, col.categories), (v) => String(v));
      const codes = readIntegers(r, col.codes, -1, categories.length - 1);
      return { kind: "categorical", codes, categories };
    }
    case "strings":
      return { kind: "strings", values: readStrings(r, col.values) };
    case "numbers":
      return { kind: "numbers", values: readNumbers(r, col.values) };
    case "enum": {
      // h5py stores numpy booleans as an enum {FALSE: 0, TRUE: 1}; keep the member names.
      const members = col.values.kind === "dataset" ? (col.values.meta.enum_type?.members ?? {}) : {};
      const entries = Object.entries(members).sort((a, b) => a[1] - b[1]);
      const byValue = new Map(
        entries.map(([name, v]) => [v, name === "FALSE" ? "False" : name === "TRUE" ? "True" : name]),
      );
      const values = readNumbers(r, col.values);
      return { kind: "strings", values: Array.from(values, (v) => byValue.get(v) ?? String(v)) };
    }
    case "nullable": {
      const mask = readNumbers(r, col.mask);
      if (col.values.kind === "dataset" && col.values.meta.type === H5T.string) {
        const values = readStrings(r, col.values);
        return { kind: "strings", values: values.map((v, i) => (mask[i] ? null : v)) };
      }
      const values = readNumbers(r, col.values);
      for (let i = 0; i < values.length; i++) if (mask[i]) values[i] = NaN;
      return { kind: "numbers", values };
    }
  }
}

/** Reads one matrix as CSR, validating every index so hostile content cannot index out of range. */
function readMatrix(r: H5Reader, m: MatrixLayout): CsrMatrix {
  if (m.encoding === "dense") return readDense(r, m);
  const major = m.encoding === "csr" ? m.nRows : m.nCols;
  const minor = m.encoding === "csr" ? m.nCols : m.nRows;
  const indptr = readIntegers(r, m.indptr, 0, m.nnz);
  if (indptr[0] !== 0 || indptr[major] !== m.nnz) {
    throw invalidH5ad(`The sparse matrix ${m.path} has an indptr that does not span its ${m.nnz} values.`);
  }
  for (let i = 0; i < major; i++) {
    if (indptr[i + 1]! < indptr[i]!)
      throw invalidH5ad(`The sparse matrix ${m.path} has a decreasing indptr.`);
  }
  const indices = readIntegers(r, m.indices, 0, minor - 1);
  const data = readNumbers(r, m.data);
  if (m.encoding === "csr") return { nRows: m.nRows, nCols: m.nCols, indptr, indices, data };
  return transposeToCsr(m.nRows, m.nCols, indptr, indices, data);
}

/** CSC (column-major) arrays to CSR with the same entries. */
function transposeToCsr(
  nRows: number,
  nCols: number,
  colPtr: Int32Array,
  rowIdx: Int32Array,
  values: Float64Array,
): CsrMatrix {
  const indptr = new Int32Array(nRows + 1);
  for (let k = 0; k < rowIdx.length; k++) indptr[rowIdx[k]! + 1]!++;
  for (let i = 0; i < nRows; i++) indptr[i + 1]! += indptr[i]!;
  const next = indptr.slice(0, nRows);
  const indices = new Int32Array(rowIdx.length);
  const data = new Float64Array(rowIdx.length);
  for (let j = 0; j < nCols; j++) {
    for (let k = colPtr[j]!; k < colPtr[j + 1]!; k++) {
      const dst = next[rowIdx[k]!]!++;
      indices[dst] = j;
      data[dst] = values[k]!;
    }
  }
  return { nRows, nCols, indptr, indices, data };
}

function readDense(r: H5Reader, m: Extract<MatrixLayout, { encoding: "dense" }>): CsrMatrix {
  const rowsPerBlock = Math.max(1, Math.floor((1 << 20) / Math.max(1, m.nCols)));
  const indptr = new Int32Array(m.nRows + 1);
  let indices = new Int32Array(1 << 16);
  let data = new Float64Array(1 << 16);
  let nnz = 0;
  for (let start = 0; start < m.nRows; start += rowsPerBlock) {
    const end = Math.min(m.nRows, start + rowsPerBlock);
    const block = readRows(r, m.node, start, end);
    for (let i = start; i < end; i++) {
      const base = (i - start) * m.nCols;
      for (let j = 0; j < m.nCols; j++) {
        const v = block[base + j]!;
        if (v === 0) continue;
        if (nnz === data.length) {
          const grownI = new Int32Array(data.length * 2);
          grownI.set(indices);
          indices = grownI;
          const grownD = new Float64Array(data.length * 2);
          grownD.set(data);
          data = grownD;
        }
        indices[nnz] = j;
        data[nnz] = v;
        nnz++;
      }
      indptr[i + 1] = nnz;
    }
  }
  return { nRows: m.nRows, nCols: m.nCols, indptr, indices: indices.slice(0, nnz), data: data.slice(0, nnz) };
}

/** The column's values as strings, missing values as null (for matching condition levels etc.). */
export function columnAsStrings(col: FrameColumn): (string | null)[] {
  switch (col.kind) {
    case "categorical":
      return Array.from(col.codes, (c) => (c < 0 ? null : col.categories[c]!));
    case "strings":
      return col.values;
    case "numbers":
      return Array.from(col.values, (v) => (Number.isNaN(v) ? null : String(v)));
  }
}
