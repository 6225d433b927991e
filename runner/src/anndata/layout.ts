/**
 * What an AnnData file declares, from metadata and small attributes only: dimensions, the
 * matrices and their encodings, obs/var columns. Every bound of `ReadLimits` is checked here,
 * before any matrix or column data is read.
 */
import { JobFailure } from "@causeway/contract";
import { H5LibraryFailure, invalidH5ad } from "./errors.ts";
import type { H5Node } from "./inventory.ts";
import type { ReadLimits } from "./limits.ts";
import {
  H5T,
  describeType,
  integerListAttribute,
  isNumericMeta,
  length1d,
  stringAttribute,
  stringListAttribute,
  type H5Reader,
} from "./read-values.ts";

/** Where a matrix of counts can be: the main matrix, raw.X, or a layer. */
export type MatrixName = "X" | "raw/X" | `layers/${string}`;

/**
 * Layer names that say "raw counts", lower-cased, in the order they are tried: AnnData's
 * usual `counts`, then the names other pipelines keep raw UMI counts under. They come before
 * raw.X and X because a file that names a counts layer has usually normalized X in place.
 */
const COUNT_LAYERS = ["counts", "raw_counts", "count", "raw", "umi", "umis", "umi_counts"];

/**
 * Layers that hold part of each cell's molecules (velocyto's and scVelo's spliced reads): tried
 * after X, because a velocity file whose X still holds counts holds them for all molecules.
 */
const PARTIAL_COUNT_LAYERS = ["spliced"];

/**
 * The count-matrix candidates present in a file, in the order they are tried (model.md §3.2,
 * runner/README.md): layers named as counts, raw.X, X, partial-count layers, then every other
 * layer by name, since any layer of raw integer counts will do.
 */
export function countMatrixOrder(layers: readonly string[], hasRaw: boolean, hasX: boolean): MatrixName[] {
  const named = (keys: readonly string[]): string[] =>
    keys.flatMap((key) => layers.filter((l) => l.trim().toLowerCase() === key));
  const counts = named(COUNT_LAYERS);
  const partial = named(PARTIAL_COUNT_LAYERS);
  const others = layers.filter((l) => !counts.includes(l) && !partial.includes(l)).sort();
  const layer = (l: string): MatrixName => `layers/${l}`;
  return [
    ...counts.map(layer),
    ...(hasRaw ? (["raw/X"] as const) : []),
    ...(hasX ? (["X"] as const) : []),
    ...partial.map(layer),
    ...others.map(layer),
  ];
}

/** How one matrix is stored. */
export type MatrixLayout =
  | { encoding: "dense"; path: string; nRows: number; nCols: number; node: H5Node }
  | {
      encoding: "csr" | "csc";
      path: string;
      nRows: number;
      nCols: number;
      nnz: number;
      data: H5Node;
      indices: H5Node;
      indptr: H5Node;
    };

/** How one dataframe column is stored. */
export type ColumnLayout =
  | { encoding: "categorical"; name: string; codes: H5Node; categories: H5Node }
  | { encoding: "strings"; name: string; values: H5Node }
  | { encoding: "numbers"; name: string; values: H5Node }
  | { encoding: "enum"; name: string; values: H5Node }
  | { encoding: "nullable"; name: string; values: H5Node; mask: H5Node };

/** A dataframe group (obs, var, raw/var): its index and readable columns. */
export interface FrameLayout {
  path: string;
  length: number;
  index: H5Node;
  columns: ColumnLayout[];
  /** Columns present but not in a form this reader interprets (2-D arrays, compound types). */
  skipped: string[];
}

/** Everything the file declares, checked against the limits. */
export interface AnnDataLayout {
  nObs: number;
  nVars: number;
  obs: FrameLayout;
  var: FrameLayout;
  /** Every count-matrix candidate of the file, in the order they are tried (`countMatrixOrder`). */
  candidates: MatrixName[];
  /** The candidates to read. */
  matrices: Map<MatrixName, MatrixLayout>;
  /** Why the other candidates are not read: malformed, or beyond the size limits (never X). */
  unread: Map<MatrixName, string>;
  /** All layer names. */
  layers: string[];
  /** raw.var, when raw.X is among `matrices`. */
  rawVar: FrameLayout | null;
}

const child = (r: H5Reader, parent: string, name: string): H5Node | undefined =>
  r.inventory.resolve(parent === "/" ? `/${name}` : `${parent}/${name}`);

/** The HDF5 formats people take for AnnData, named with the conversion that makes an .h5ad. */
function otherHdf5Format(r: H5Reader): string {
  const matrix = r.inventory.resolve("/matrix");
  if (matrix?.kind === "group" && matrix.children.includes("barcodes"))
    return " It looks like a Cell Ranger matrix (.h5): convert it with scanpy.read_10x_h5 and write_h5ad, and add the condition and sample columns to obs.";
  if (matrix?.kind === "dataset" && r.inventory.resolve("/col_attrs"))
    return " It looks like a Loom file: convert it with scanpy.read_loom and write_h5ad.";
  return "";
}

function frameLayout(r: H5Reader, path: string, what: string): FrameLayout {
  const group = r.inventory.resolve(path);
  if (!group)
    throw invalidH5ad(
      `The file has no ${what} table (${path}); it is not an AnnData file.${otherHdf5Format(r)}`,
    );
  if (group.kind !== "group") {
    throw invalidH5ad(
      `The ${what} table is stored as a single dataset, the layout of anndata before 0.7; re-save the file with a current anndata.`,
    );
  }
  const indexName =
    stringAttribute(r, group, "_index") ?? (group.children.includes("_index") ? "_index" : "index");
  const index = child(r, path, indexName);
  const length = index ? length1d(index) : undefined;
  if (!index || length === undefined || index.kind !== "dataset") {
    throw invalidH5ad(`The ${what} table has no readable index (${path}/${indexName}).`);
  }
  const order = stringListAttribute(r, group, "column-order");
  for (const name of order) {
    if (!child(r, path, name)) {
      throw invalidH5ad(`The ${what} table lists a column "${name}" that is missing from the file.`);
    }
  }
  const names = [...order, ...group.children.filter((c) => !order.includes(c)).sort()].filter(
    (c) => c !== indexName && c !== "__categories",
  );
  const columns: ColumnLayout[] = [];
  const skipped: string[] = [];
  for (const name of names) {
    const node = child(r, path, name)!;
    const col = columnLayout(r, path, name, node);
    if (!col) {
      skipped.push(name);
      continue;
    }
    const n = col.encoding === "categorical" ? length1d(col.codes) : length1d(col.values);
    if (n !== length) {
      throw invalidH5ad(
        `The ${what} column "${name}" has ${n ?? "an unreadable number of"} entries, but the table has ${length} rows.`,
      );
    }
    columns.push(col);
  }
  return { path, length, index, columns, skipped };
}

/** Categories are read whole: more than MAX_CATEGORIES of them is not a label column. */
const MAX_CATEGORIES = 1_000_000;

function checkCategories(name: string, categories: H5Node): void {
  const n = length1d(categories);
  if (n === undefined || n > MAX_CATEGORIES) {
    throw invalidH5ad(
      `The categorical column "${name}" declares ${n ?? "multi-dimensional"} categories; at most ${MAX_CATEGORIES} are accepted.`,
    );
  }
}

function columnLayout(r: H5Reader, parent: string, name: string, node: H5Node): ColumnLayout | null {
  if (node.kind === "group") {
    const type = stringAttribute(r, node, "encoding-type");
    const sub = (n: string) => child(r, node.path, n);
    if (type === "categorical") {
      const codes = sub("codes");
      const categories = sub("categories");
      if (codes?.kind !== "dataset" || categories?.kind !== "dataset" || codes.meta.type !== H5T.integer) {
        throw invalidH5ad(`The categorical column "${name}" lacks integer codes or categories.`);
      }
      checkCategories(name, categories);
      return { encoding: "categorical", name, codes, categories };
    }
    if (type === "nullable-integer" || type === "nullable-boolean" || type === "nullable-string-array") {
      const values = sub("values");
      const mask = sub("mask");
      if (values?.kind !== "dataset" || mask?.kind !== "dataset") {
        throw invalidH5ad(`The column "${name}" (${type}) lacks values or mask.`);
      }
      return { encoding: "nullable", name, values, mask };
    }
    return null;
  }
  const shape = node.meta.shape ?? [];
  if (shape.length !== 1) return null;
  const legacyCategories = r.inventory.resolve(`${parent}/__categories/${name}`);
  if (legacyCategories?.kind === "dataset" && node.meta.type === H5T.integer) {
    checkCategories(name, legacyCategories);
    return { encoding: "categorical", name, codes: node, categories: legacyCategories };
  }
  if (node.meta.type === H5T.string) return { encoding: "strings", name, values: node };
  if (isNumericMeta(node.meta)) return { encoding: "numbers", name, values: node };
  if (node.meta.type === H5T.enum) return { encoding: "enum", name, values: node };
  return null;
}

/** Rejects absurd declared dimensions before anything else about a matrix is looked at. */
function checkDeclared(path: string, nRows: number, nCols: number, limits: ReadLimits): void {
  const name = path.replace(/^\//, "");
  if (nCols > limits.maxVars) {
    throw invalidH5ad(
      `${name} declares ${nCols.toLocaleString("en")} genes; at most ${limits.maxVars.toLocaleString("en")} are accepted.`,
    );
  }
  if (nRows > (limits.maxObs ?? limits.hardMaxObs)) tooMany(nRows, limits);
}

function matrixLayout(r: H5Reader, path: string, limits: ReadLimits): MatrixLayout {
  const node = r.inventory.resolve(path)!;
  if (node.kind === "dataset") {
    const shape = node.meta.shape ?? [];
    if (shape.length !== 2)
      throw invalidH5ad(`${path} should be a two-dimensional matrix but has ${shape.length} dimensions.`);
    checkDeclared(path, shape[0]!, shape[1]!, limits);
    if (!isNumericMeta(node.meta)) {
      throw invalidH5ad(`${path} should hold numbers (counts) but holds ${describeType(node)}.`);
    }
    return { encoding: "dense", path, nRows: shape[0]!, nCols: shape[1]!, node };
  }
  const type = stringAttribute(r, node, "encoding-type");
  const legacy = stringAttribute(r, node, "h5sparse_format");
  const encoding =
    type === "csr_matrix" || legacy === "csr"
      ? "csr"
      : type === "csc_matrix" || legacy === "csc"
        ? "csc"
        : null;
  if (!encoding) {
    throw invalidH5ad(
      `${path} is a group but not a sparse matrix this reader knows (encoding "${type ?? legacy ?? "none"}").`,
    );
  }
  const shape = integerListAttribute(r, node, "shape") ?? integerListAttribute(r, node, "h5sparse_shape");
  if (!shape || shape.length !== 2)
    throw invalidH5ad(`The sparse matrix ${path} has no valid shape attribute.`);
  const [nRows, nCols] = shape as [number, number];
  checkDeclared(path, nRows, nCols, limits);
  const part = (n: string): H5Node => {
    const p = child(r, path, n);
    if (p?.kind !== "dataset" || length1d(p) === undefined)
      throw invalidH5ad(`The sparse matrix ${path} lacks its ${n} array.`);
    return p;
  };
  const data = part("data");
  const indices = part("indices");
  const indptr = part("indptr");
  if (data.kind !== "dataset" || !isNumericMeta(data.meta))
    throw invalidH5ad(`${path}/data should hold numbers but holds ${describeType(data)}.`);
  if (
    indices.kind !== "dataset" ||
    indices.meta.type !== H5T.integer ||
    indptr.kind !== "dataset" ||
    indptr.meta.type !== H5T.integer
  ) {
    throw invalidH5ad(`The sparse matrix ${path} has non-integer indices or indptr.`);
  }
  const nnz = length1d(data)!;
  if (length1d(indices) !== nnz)
    throw invalidH5ad(`The sparse matrix ${path} has ${nnz} values but ${length1d(indices)} indices.`);
  const major = encoding === "csr" ? nRows : nCols;
  if (length1d(indptr) !== major + 1) {
    throw invalidH5ad(
      `The sparse matrix ${path} has an indptr of length ${length1d(indptr)}, expected ${major + 1}.`,
    );
  }
  return { encoding, path, nRows, nCols, nnz, data, indices, indptr };
}

function checkShape(m: MatrixLayout, nObs: number, nVars: number | null, limits: ReadLimits): void {
  if (m.nRows !== nObs || (nVars !== null && m.nCols !== nVars)) {
    throw invalidH5ad(
      `${m.path} has shape ${m.nRows} × ${m.nCols} but the file has ${nObs} observations and ${nVars ?? m.nCols} genes.`,
    );
  }
  if (m.nCols > limits.maxVars) {
    throw invalidH5ad(
      `${m.path} has ${m.nCols} genes; at most ${limits.maxVars.toLocaleString("en")} are accepted.`,
    );
  }
  if (m.encoding === "dense" && m.nRows * m.nCols > limits.maxDenseElements) {
    throw invalidH5ad(
      `${m.path} is a dense ${m.nRows} × ${m.nCols} matrix, larger than the ${limits.maxDenseElements.toLocaleString("en")} values accepted; store it sparse (CSR).`,
    );
  }
  if (m.encoding !== "dense" && m.nnz > limits.maxNnz) {
    throw invalidH5ad(
      `${m.path} stores ${m.nnz} non-zero values; at most ${limits.maxNnz.toLocaleString("en")} are accepted.`,
    );
  }
}

/** Checks the declared dimensions of the file against `limits` and describes its layout. */
export function describeLayout(r: H5Reader, limits: ReadLimits): AnnDataLayout {
  const root = r.inventory.resolve("/")!;
  if (root.kind !== "group") throw invalidH5ad("The file has no root group.");
  // Declared matrix shapes are checked before the index lengths so that an absurd declared
  // shape is reported as such, whatever else is wrong with the file.
  const xNode = r.inventory.resolve("/X");
  const x = xNode ? matrixLayout(r, "/X", limits) : null;
  const obs = frameLayout(r, "/obs", "obs");
  const vars = frameLayout(r, "/var", "var");
  const nObs = obs.length;
  const nVars = vars.length;
  if (nVars > limits.maxVars) {
    throw invalidH5ad(
      `The file has ${nVars.toLocaleString("en")} genes; at most ${limits.maxVars.toLocaleString("en")} are accepted.`,
    );
  }
  if (nObs > (limits.maxObs ?? limits.hardMaxObs)) tooMany(nObs, limits);
  if (nObs === 0 || nVars === 0)
    throw invalidH5ad(`The file holds an empty matrix (${nObs} observations × ${nVars} genes).`);

  const layersGroup = r.inventory.resolve("/layers");
  const layers = layersGroup?.kind === "group" ? [...layersGroup.children].sort() : [];
  const candidates = countMatrixOrder(layers, r.inventory.resolve("/raw/X") !== undefined, x !== null);
  const size = (m: MatrixLayout): number => (m.encoding === "dense" ? m.nRows * m.nCols : m.nnz);
  // X is the file's main matrix: its problems fail the file, and it is always read.
  if (x) checkShape(x, nObs, nVars, limits);
  let total = x ? size(x) : 0;
  if (total > limits.maxTotalValues) {
    throw invalidH5ad(
      `X stores ${total.toLocaleString("en")} values; at most ${limits.maxTotalValues.toLocaleString("en")} are accepted.`,
    );
  }
  const matrices = new Map<MatrixName, MatrixLayout>();
  const unread = new Map<MatrixName, string>();
  let rawVar: FrameLayout | null = null;
  for (const name of candidates) {
    if (name === "X") {
      if (x) matrices.set(name, x);
      continue;
    }
    // Another candidate may be something else under a layer's name (a velocity field, an
    // embedding): passed over with its reason rather than failing a file X may serve.
    try {
      const candidate = candidateLayout(r, name, nObs, nVars, limits);
      if (total + size(candidate.matrix) > limits.maxTotalValues) {
        unread.set(
          name,
          `not read: with its ${size(candidate.matrix).toLocaleString("en")} values the file's matrices would exceed the ${limits.maxTotalValues.toLocaleString("en")} accepted`,
        );
        continue;
      }
      total += size(candidate.matrix);
      matrices.set(name, candidate.matrix);
      if (candidate.rawVar) rawVar = candidate.rawVar;
    } catch (err) {
      if (!isCheckFailure(err)) throw err;
      unread.set(name, err.message);
    }
  }
  if (matrices.size === 0) {
    const why = [...unread].map(([name, reason]) => `${name}: ${reason}`).join("; ");
    throw invalidH5ad(
      `The file has no readable expression matrix (X, raw.X or a layer)${why ? `: ${why}` : "."}`,
    );
  }
  return { nObs, nVars, obs, var: vars, candidates, matrices, unread, layers, rawVar };
}

/** A raw.X or layer candidate, checked against the file's dimensions and the limits. */
function candidateLayout(
  r: H5Reader,
  name: Exclude<MatrixName, "X">,
  nObs: number,
  nVars: number,
  limits: ReadLimits,
): { matrix: MatrixLayout; rawVar: FrameLayout | null } {
  const matrix = matrixLayout(r, `/${name}`, limits);
  if (name !== "raw/X") {
    checkShape(matrix, nObs, nVars, limits);
    return { matrix, rawVar: null };
  }
  // raw keeps its own genes (often more than X, which was cut to highly variable genes).
  const rawVar = frameLayout(r, "/raw/var", "raw.var");
  checkShape(matrix, nObs, rawVar.length, limits);
  return { matrix, rawVar };
}

/** A failure of this module's own checks (not of h5wasm, whose state is then not trusted). */
function isCheckFailure(err: unknown): err is JobFailure {
  return (
    err instanceof JobFailure &&
    !(err instanceof H5LibraryFailure) &&
    (err.code === "invalid_h5ad" || err.code === "too_many_observations")
  );
}

function tooMany(n: number, limits: ReadLimits): never {
  const cap = limits.maxObs ?? limits.hardMaxObs;
  throw new JobFailure(
    "too_many_observations",
    `The file has ${n.toLocaleString("en")} observations; at most ${cap.toLocaleString("en")} are accepted per file. Subsample cells or split the dataset.`,
  );
}
