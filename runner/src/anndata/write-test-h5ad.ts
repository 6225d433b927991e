/**
 * Writes small AnnData files with h5wasm for tests, in the current on-disk encoding or in
 * older writers' layouts (legacy categoricals, h5sparse groups). Test support only: the
 * product never writes .h5ad.
 */
import h5wasm from "h5wasm/node";
import type { Group } from "h5wasm/node";

/** A column: strings (categorical unless `plainStrings`), or numbers. null = missing. */
export type TestColumn = (string | null)[] | number[];

export interface TestH5ad {
  /** Observations × genes. */
  X?: number[][];
  xEncoding?: "csr" | "csc" | "dense" | "legacy-csr";
  xDtype?: "<i4" | "<i8" | "<f4" | "<f8";
  /** Replaces X with a dataset of strings (a hostile fixture). */
  xStrings?: boolean;
  obs: Record<string, TestColumn>;
  obsNames?: string[];
  varNames: string[];
  var?: Record<string, string[]>;
  layers?: Record<string, number[][]>;
  raw?: { X: number[][]; varNames: string[] };
  /** Store string columns as plain string arrays rather than categoricals. */
  plainStrings?: boolean;
  /** Store categoricals the anndata 0.7 way: codes dataset + obs/__categories/<name>. */
  legacyCategoricals?: boolean;
  /** Extra names in obs `column-order` with no column behind them (a hostile fixture). */
  phantomObsColumns?: string[];
}

function strAttr(g: Group, name: string, value: string): void {
  g.create_attribute(name, value);
}

function writeFrame(
  parent: Group,
  name: string,
  index: string[],
  columns: Record<string, TestColumn>,
  spec: TestH5ad,
  phantom: string[] = [],
): void {
  const g = parent.create_group(name);
  strAttr(g, "encoding-type", "dataframe");
  strAttr(g, "encoding-version", "0.2.0");
  strAttr(g, "_index", "_index");
  const order = [...Object.keys(columns), ...phantom];
  if (order.length > 0) g.create_attribute("column-order", order);
  else g.create_attribute("column-order", new Float64Array(0), [0], "<f8");
  const idx = g.create_dataset({ name: "_index", data: index });
  idx.create_attribute("encoding-type", "string-array");
  idx.create_attribute("encoding-version", "0.2.0");
  for (const [col, values] of Object.entries(columns)) {
    if (values.every((v) => typeof v === "number")) {
      g.create_dataset({ name: col, data: Float64Array.from(values as number[]) });
      continue;
    }
    const strings = values as (string | null)[];
    if (spec.plainStrings) {
      g.create_dataset({ name: col, data: strings.map((s) => s ?? "") });
      continue;
    }
    const categories = [...new Set(strings.filter((s): s is string => s !== null))].sort();
    const codes = Int8Array.from(strings, (s) => (s === null ? -1 : categories.indexOf(s)));
    if (spec.legacyCategoricals) {
      g.create_dataset({ name: col, data: codes });
      const cats = (g.get("__categories") as Group | null) ?? g.create_group("__categories");
      cats.create_dataset({ name: col, data: categories });
      continue;
    }
    const c = g.create_group(col);
    strAttr(c, "encoding-type", "categorical");
    strAttr(c, "encoding-version", "0.2.0");
    c.create_dataset({ name: "codes", data: codes });
    c.create_dataset({ name: "categories", data: categories });
  }
}

function writeMatrix(
  parent: Group,
  name: string,
  rows: number[][],
  nCols: number,
  encoding: TestH5ad["xEncoding"],
  dtype: string,
): void {
  const nRows = rows.length;
  if (encoding === "dense") {
    const flat = new Float64Array(nRows * nCols);
    rows.forEach((r, i) => r.forEach((v, j) => (flat[i * nCols + j] = v)));
    parent.create_dataset({ name, data: flat, shape: [nRows, nCols], dtype });
    return;
  }
  const byRow = encoding !== "csc";
  const major = byRow ? nRows : nCols;
  const indptr = [0];
  const indices: number[] = [];
  const data: number[] = [];
  for (let a = 0; a < major; a++) {
    for (let b = 0; b < (byRow ? nCols : nRows); b++) {
      const v = byRow ? rows[a]![b]! : rows[b]![a]!;
      if (v !== 0) {
        indices.push(b);
        data.push(v);
      }
    }
    indptr.push(indices.length);
  }
  const g = parent.create_group(name);
  if (encoding === "legacy-csr") {
    strAttr(g, "h5sparse_format", "csr");
    g.create_attribute("h5sparse_shape", [nRows, nCols]);
  } else {
    strAttr(g, "encoding-type", byRow ? "csr_matrix" : "csc_matrix");
    strAttr(g, "encoding-version", "0.1.0");
    g.create_attribute("shape", BigInt64Array.from([BigInt(nRows), BigInt(nCols)]));
  }
  g.create_dataset({ name: "data", data: Float64Array.from(data), dtype });
  g.create_dataset({ name: "indices", data: Int32Array.from(indices) });
  g.create_dataset({ name: "indptr", data: Int32Array.from(indptr) });
}

/** Writes `spec` to `path` as an .h5ad file. */
export async function writeTestH5ad(path: string, spec: TestH5ad): Promise<void> {
  await h5wasm.ready;
  const f = new h5wasm.File(path, "w");
  try {
    strAttr(f, "encoding-type", "anndata");
    strAttr(f, "encoding-version", "0.1.0");
    const nObs = Object.values(spec.obs)[0]?.length ?? spec.X?.length ?? 0;
    const nVars = spec.varNames.length;
    const dtype = spec.xDtype ?? "<i4";
    if (spec.xStrings) {
      f.create_dataset({
        name: "X",
        data: Array.from({ length: nObs * nVars }, (_, i) => `v${i}`),
        shape: [nObs, nVars],
      });
    } else if (spec.X) {
      writeMatrix(f, "X", spec.X, nVars, spec.xEncoding ?? "csr", dtype);
    }
    const obsNames = spec.obsNames ?? Array.from({ length: nObs }, (_, i) => `cell${i}`);
    writeFrame(f, "obs", obsNames, spec.obs, spec, spec.phantomObsColumns);
    writeFrame(f, "var", spec.varNames, spec.var ?? {}, spec);
    const layers = f.create_group("layers");
    strAttr(layers, "encoding-type", "dict");
    strAttr(layers, "encoding-version", "0.1.0");
    for (const [name, m] of Object.entries(spec.layers ?? {}))
      writeMatrix(layers, name, m, nVars, "csr", dtype);
    if (spec.raw) {
      const raw = f.create_group("raw");
      writeMatrix(raw, "X", spec.raw.X, spec.raw.varNames.length, "csr", dtype);
      writeFrame(raw, "var", spec.raw.varNames, {}, spec);
    }
  } finally {
    f.close();
  }
}
