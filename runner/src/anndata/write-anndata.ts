/**
 * Writing a small AnnData file (the current on-disk encoding: CSR X, dataframes with
 * categorical string columns) for `causeway prepare`, which turns a user's file into the shape
 * the service accepts. Only what the service reads is written: X, obs and var.
 */
import h5wasm from "h5wasm/node";
import type { Group } from "h5wasm/node";
import type { CsrMatrix, DataFrame, FrameColumn } from "./read-anndata.ts";

function encoding(g: Group, type: string, version: string): void {
  g.create_attribute("encoding-type", type);
  g.create_attribute("encoding-version", version);
}

function writeColumn(g: Group, name: string, col: FrameColumn): void {
  if (col.kind === "numbers") {
    g.create_dataset({ name, data: Float64Array.from(col.values) });
    return;
  }
  const values =
    col.kind === "strings" ? col.values : Array.from(col.codes, (c) => (c < 0 ? null : col.categories[c]!));
  const categories = [...new Set(values.filter((v): v is string => v !== null))].sort();
  const index = new Map(categories.map((c, i) => [c, i]));
  const codes = Int32Array.from(values, (v) => (v === null ? -1 : index.get(v)!));
  const c = g.create_group(name);
  encoding(c, "categorical", "0.2.0");
  c.create_attribute("ordered", new Uint8Array([0]), [], "|b1");
  c.create_dataset({ name: "codes", data: codes });
  const cats = c.create_dataset({ name: "categories", data: categories.length > 0 ? categories : [""] });
  cats.create_attribute("encoding-type", "string-array");
  cats.create_attribute("encoding-version", "0.2.0");
}

function writeFrame(parent: Group, name: string, frame: DataFrame): void {
  const g = parent.create_group(name);
  encoding(g, "dataframe", "0.2.0");
  g.create_attribute("_index", "_index");
  const names = [...frame.columns.keys()];
  if (names.length > 0) g.create_attribute("column-order", names);
  else g.create_attribute("column-order", new Float64Array(0), [0], "<f8");
  const idx = g.create_dataset({ name: "_index", data: frame.index });
  encoding(idx as unknown as Group, "string-array", "0.2.0");
  for (const [col, values] of frame.columns) writeColumn(g, col, values);
}

function writeCsr(parent: Group, name: string, m: CsrMatrix): void {
  const g = parent.create_group(name);
  encoding(g, "csr_matrix", "0.1.0");
  g.create_attribute("shape", BigInt64Array.from([BigInt(m.nRows), BigInt(m.nCols)]));
  const integers = m.data.every((v) => Number.isInteger(v) && Math.abs(v) < 2 ** 31);
  g.create_dataset({ name: "data", data: integers ? Int32Array.from(m.data) : Float64Array.from(m.data) });
  g.create_dataset({ name: "indices", data: Int32Array.from(m.indices) });
  g.create_dataset({ name: "indptr", data: Int32Array.from(m.indptr) });
}

/** Writes X (observations × genes), obs and var to `path` as an .h5ad file. */
export async function writeAnnData(
  path: string,
  ad: { X: CsrMatrix; obs: DataFrame; var: DataFrame },
): Promise<void> {
  await h5wasm.ready;
  const f = new h5wasm.File(path, "w");
  try {
    encoding(f, "anndata", "0.1.0");
    writeCsr(f, "X", ad.X);
    writeFrame(f, "obs", ad.obs);
    writeFrame(f, "var", ad.var);
    const layers = f.create_group("layers");
    encoding(layers, "dict", "0.1.0");
  } finally {
    f.close();
  }
}

/** The rows `rows` of a CSR matrix, in that order. */
export function csrRows(m: CsrMatrix, rows: readonly number[]): CsrMatrix {
  let nnz = 0;
  for (const r of rows) nnz += m.indptr[r + 1]! - m.indptr[r]!;
  const indptr = new Int32Array(rows.length + 1);
  const indices = new Int32Array(nnz);
  const data = new Float64Array(nnz);
  let q = 0;
  rows.forEach((r, i) => {
    for (let p = m.indptr[r]!; p < m.indptr[r + 1]!; p++, q++) {
      indices[q] = m.indices[p]!;
      data[q] = m.data[p]!;
    }
    indptr[i + 1] = q;
  });
  return { nRows: rows.length, nCols: m.nCols, indptr, indices, data };
}

/** The rows `rows` of a dataframe, every column kept. */
export function frameRows(frame: DataFrame, rows: readonly number[]): DataFrame {
  const columns = new Map<string, FrameColumn>();
  for (const [name, col] of frame.columns) {
    if (col.kind === "numbers")
      columns.set(name, { kind: "numbers", values: Float64Array.from(rows, (r) => col.values[r]!) });
    else if (col.kind === "strings")
      columns.set(name, { kind: "strings", values: rows.map((r) => col.values[r]!) });
    else
      columns.set(name, {
        kind: "categorical",
        codes: Int32Array.from(rows, (r) => col.codes[r]!),
        categories: col.categories,
      });
  }
  return { index: rows.map((r) => frame.index[r]!), columns, skipped: [] };
}
