/**
 * Reading attributes and datasets in bounded pieces, converting HDF5 element types to the
 * few JS representations the reader needs. Every read is preceded by a size check on the
 * metadata, and large datasets are read in blocks so that h5wasm's heap stays small.
 */
import type { File as H5File, Dataset, Metadata } from "h5wasm/node";
import type { h5Module } from "./h5-file.ts";
import { invalidH5ad } from "./errors.ts";
import type { H5Inventory, H5Node } from "./inventory.ts";

type H5Module = Awaited<ReturnType<typeof h5Module>>;

/** HDF5 type classes (H5T_class_t) used here. */
export const H5T = { integer: 0, float: 1, string: 3, enum: 8 } as const;

/** Longest fixed-length string element accepted (bytes). */
const MAX_FIXED_STRING = 1 << 16;

/** Elements read per h5wasm call: bounds the wasm heap a read needs (8 MiB of float64). */
const BLOCK = 1 << 20;

/** A context for reads from one open file. */
export interface H5Reader {
  module: H5Module;
  file: H5File;
  inventory: H5Inventory;
  maxAttributeBytes: number;
}

export const isNumericMeta = (m: Metadata): boolean => m.type === H5T.integer || m.type === H5T.float;

/** The value of an attribute after checking its size, or undefined when absent. */
export function readAttribute(r: H5Reader, node: H5Node, name: string): unknown {
  if (!node.attributes.includes(name)) return undefined;
  const meta = r.module.get_attribute_metadata(r.file.file_id, node.path, name);
  const bytes = meta.size * meta.total_size;
  if (!Number.isFinite(bytes) || bytes > r.maxAttributeBytes) {
    throw invalidH5ad(`The attribute ${name} of ${node.path} is implausibly large (${bytes} bytes).`);
  }
  if (
    meta.type !== H5T.string &&
    meta.type !== H5T.integer &&
    meta.type !== H5T.float &&
    meta.type !== H5T.enum
  ) {
    return undefined;
  }
  const holder = r.file.get(node.path);
  if (!holder || !("get_attribute" in holder)) return undefined;
  return holder.get_attribute(name, false);
}

/** A string attribute (scalar or one-element array), else undefined. */
export function stringAttribute(r: H5Reader, node: H5Node, name: string): string | undefined {
  const v = readAttribute(r, node, name);
  if (typeof v === "string") return v;
  if (Array.isArray(v) && v.length === 1 && typeof v[0] === "string") return v[0];
  return undefined;
}

/** An array of strings (AnnData `column-order`); non-string or empty arrays give []. */
export function stringListAttribute(r: H5Reader, node: H5Node, name: string): string[] {
  const v = readAttribute(r, node, name);
  if (typeof v === "string") return [v];
  if (Array.isArray(v) && v.every((x) => typeof x === "string")) return v as string[];
  return [];
}

/** An integer vector attribute such as a sparse `shape` (int64 arrives as BigInt64Array). */
export function integerListAttribute(r: H5Reader, node: H5Node, name: string): number[] | undefined {
  const v = readAttribute(r, node, name);
  let values: number[];
  if (v instanceof BigInt64Array || v instanceof BigUint64Array) values = Array.from(v, (x) => Number(x));
  else if (ArrayBuffer.isView(v) && !(v instanceof DataView))
    values = Array.from(v as unknown as ArrayLike<number>);
  else if (Array.isArray(v) && v.every((x) => typeof x === "number" || typeof x === "bigint"))
    values = v.map(Number);
  else if (typeof v === "number" || typeof v === "bigint") values = [Number(v)];
  else return undefined;
  return values.every((x) => Number.isSafeInteger(x) && x >= 0) ? values : undefined;
}

function datasetOf(r: H5Reader, node: H5Node): Dataset {
  const ds = r.file.get(node.path);
  if (!ds || !("slice" in ds)) throw invalidH5ad(`${node.path} is not a dataset.`);
  return ds as Dataset;
}

/** Rank-1 length of a dataset node (or rank-0 = 1), else undefined. */
export function length1d(node: H5Node): number | undefined {
  if (node.kind !== "dataset") return undefined;
  const shape = node.meta.shape;
  if (!shape) return 0;
  if (shape.length === 0) return 1;
  if (shape.length === 1) return shape[0];
  return undefined;
}

function toFloat64(chunk: unknown, into: Float64Array, at: number, path: string): number {
  if (chunk instanceof BigInt64Array || chunk instanceof BigUint64Array) {
    for (let i = 0; i < chunk.length; i++) into[at + i] = Number(chunk[i]);
    return chunk.length;
  }
  if (ArrayBuffer.isView(chunk) && !(chunk instanceof DataView)) {
    const arr = chunk as unknown as ArrayLike<number>;
    into.set(arr, at);
    return arr.length;
  }
  throw invalidH5ad(`${path} does not hold numbers.`);
}

/**
 * Elements [start, end) of a numeric rank-1 (or rank-2, flattened row-major over whole rows)
 * dataset as float64, read in blocks. The caller has bounded `end - start`.
 */
export function readNumbers(r: H5Reader, node: H5Node, start = 0, end?: number): Float64Array {
  if (node.kind !== "dataset" || !(isNumericMeta(node.meta) || node.meta.type === H5T.enum)) {
    throw invalidH5ad(`${node.path} should hold numbers but holds ${describeType(node)}.`);
  }
  const ds = datasetOf(r, node);
  const shape = node.meta.shape ?? [];
  const total = shape.length === 0 ? 1 : shape[0]!;
  const stop = end ?? total;
  const out = new Float64Array(stop - start);
  if (shape.length === 0) {
    const v = ds.value;
    out[0] = typeof v === "bigint" ? Number(v) : Number(v);
    return out;
  }
  if (shape.length === 1) {
    for (let s = start; s < stop; s += BLOCK) {
      const e = Math.min(stop, s + BLOCK);
      const got = toFloat64(ds.slice([[s, e]]), out, s - start, node.path);
      if (got !== e - s) throw invalidH5ad(`${node.path} returned fewer values than it declares.`);
    }
    return out;
  }
  throw invalidH5ad(`${node.path} has ${shape.length} dimensions where 1 was expected.`);
}

/** Rows [rowStart, rowEnd) of a rank-2 numeric dataset, row-major, as float64. */
export function readRows(r: H5Reader, node: H5Node, rowStart: number, rowEnd: number): Float64Array {
  if (node.kind !== "dataset" || !isNumericMeta(node.meta))
    throw invalidH5ad(`${node.path} does not hold numbers.`);
  const [, cols] = node.meta.shape as [number, number];
  const out = new Float64Array((rowEnd - rowStart) * cols);
  const got = toFloat64(datasetOf(r, node).slice([[rowStart, rowEnd], []]), out, 0, node.path);
  if (got !== out.length) throw invalidH5ad(`${node.path} returned fewer values than it declares.`);
  return out;
}

/**
 * Integers of a rank-1 dataset as int32, checked to lie within [min, max] (both within int32).
 * 8/16/32-bit sources are copied without a detour through float64: indices and indptr are
 * the bulk of a sparse matrix.
 */
export function readIntegers(r: H5Reader, node: H5Node, min: number, max: number): Int32Array {
  if (node.kind !== "dataset" || node.meta.type !== H5T.integer) {
    throw invalidH5ad(`${node.path} should hold integers but holds ${describeType(node)}.`);
  }
  const shape = node.meta.shape ?? [];
  if (shape.length !== 1) return Int32Array.from(checkRange(node, readNumbers(r, node), min, max));
  const ds = datasetOf(r, node);
  const n = shape[0]!;
  const out = new Int32Array(n);
  for (let s = 0; s < n; s += BLOCK) {
    const e = Math.min(n, s + BLOCK);
    const chunk = ds.slice([[s, e]]);
    if (chunk instanceof BigInt64Array || chunk instanceof BigUint64Array) {
      for (let i = 0; i < chunk.length; i++) {
        const v = Number(chunk[i]);
        if (!(v >= min && v <= max)) throw outOfRange(node, v, min, max);
        out[s + i] = v;
      }
    } else if (
      ArrayBuffer.isView(chunk) &&
      !(chunk instanceof DataView) &&
      (chunk as ArrayLike<number>).length === e - s
    ) {
      const arr = chunk as unknown as ArrayLike<number>;
      for (let i = 0; i < arr.length; i++) {
        const v = arr[i]!;
        if (!(v >= min && v <= max)) throw outOfRange(node, v, min, max);
      }
      out.set(arr, s);
    } else {
      throw invalidH5ad(`${node.path} returned fewer values than it declares.`);
    }
  }
  return out;
}

const outOfRange = (node: H5Node, v: number, min: number, max: number) =>
  invalidH5ad(`${node.path} holds the value ${v}, outside [${min}, ${max}].`);

function checkRange(node: H5Node, values: Float64Array, min: number, max: number): Float64Array {
  for (let i = 0; i < values.length; i++) {
    const v = values[i]!;
    if (!(v >= min && v <= max)) throw outOfRange(node, v, min, max);
  }
  return values;
}

/** Strings of a rank-1 string dataset (fixed-length or variable-length, ASCII or UTF-8). */
export function readStrings(r: H5Reader, node: H5Node): string[] {
  if (node.kind !== "dataset" || node.meta.type !== H5T.string) {
    throw invalidH5ad(`${node.path} should hold strings but holds ${describeType(node)}.`);
  }
  const n = length1d(node);
  if (n === undefined) throw invalidH5ad(`${node.path} should be one-dimensional.`);
  if (!node.meta.vlen && node.meta.size > MAX_FIXED_STRING) {
    throw invalidH5ad(
      `${node.path} holds fixed-length strings of ${node.meta.size} bytes each; names that long are not gene or cell names.`,
    );
  }
  const ds = datasetOf(r, node);
  if ((node.meta.shape ?? []).length === 0) {
    const v = ds.value;
    const s = typeof v === "string" ? v : String(v);
    if (s.includes("\uFFFD"))
      throw invalidH5ad(
        `${node.path} contains text that is not valid UTF-8; re-save the file with UTF-8 names.`,
      );
    return [s];
  }
  const out: string[] = [];
  const block = Math.max(1, Math.floor(BLOCK / 8));
  for (let s = 0; s < n; s += block) {
    const part = ds.slice([[s, Math.min(n, s + block)]]);
    if (!Array.isArray(part)) throw invalidH5ad(`${node.path} did not read as strings.`);
    for (const v of part) out.push(typeof v === "string" ? v : String(v));
  }
  if (out.length !== n) throw invalidH5ad(`${node.path} returned fewer strings than it declares.`);
  // h5wasm decodes invalid UTF-8 to U+FFFD instead of failing, as anndata would.
  const bad = out.findIndex((s) => s.includes("\uFFFD"));
  if (bad >= 0)
    throw invalidH5ad(
      `${node.path} contains text that is not valid UTF-8 (entry ${bad}); re-save the file with UTF-8 names.`,
    );
  return out;
}

/** A short description of a node's element type for messages. */
export function describeType(node: H5Node): string {
  if (node.kind === "group") return "a group";
  const m = node.meta;
  switch (m.type) {
    case H5T.integer:
      return `${m.signed ? "" : "unsigned "}${m.size * 8}-bit integers`;
    case H5T.float:
      return `${m.size * 8}-bit floats`;
    case H5T.string:
      return "strings";
    case H5T.enum:
      return "an enumeration (booleans)";
    default:
      return `HDF5 type class ${m.type}`;
  }
}
