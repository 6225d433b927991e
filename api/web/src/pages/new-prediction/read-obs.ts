/**
 * Reads an .h5ad's obs in the browser, before anything is uploaded. jsfive (pure JavaScript) is
 * used rather than h5wasm because the page's CSP allows no WebAssembly compilation; it is
 * loaded in its own chunk, only when a file is chosen. The whole file is read into memory, so
 * files above a size are left to the service.
 */
import type { ObsColumn, ObsTable } from "./obs-table.ts";

export const MAX_READ_BYTES = 1024 ** 3;
/** A column with more levels than this is not a grouping (cell barcodes, numbers). */
const MAX_LEVELS = 500;

function strings(v: unknown): string[] | null {
  if (!Array.isArray(v) && !ArrayBuffer.isView(v)) return null;
  return Array.from(v as ArrayLike<unknown>, (x) => String(x));
}

function factorize(values: string[]): { levels: string[]; codes: number[] } {
  const index = new Map<string, number>();
  const codes = values.map((v) => {
    let c = index.get(v);
    if (c === undefined) index.set(v, (c = index.size));
    return c;
  });
  return { levels: [...index.keys()], codes };
}

export async function readObs(file: File): Promise<ObsTable> {
  if (file.size > MAX_READ_BYTES)
    throw new Error(
      `${file.name} is larger than 1 GB: the page does not read it; name the columns yourself, or run causeway prepare.`,
    );
  const hdf5 = await import("jsfive");
  const f = new hdf5.File(await file.arrayBuffer(), file.name);
  const obs = f.get("obs");
  if (!(obs instanceof hdf5.Group))
    throw new Error(`${file.name}: obs is not a group (an AnnData file written before anndata 0.8?)`);
  const indexName = typeof obs.attrs._index === "string" ? obs.attrs._index : "_index";
  let nObs = 0;
  const columns: ObsColumn[] = [];
  for (const name of obs.keys) {
    if (name === indexName || name === "__categories") continue;
    const node = obs.get(name);
    let column: { levels: string[]; codes: number[] } | null = null;
    if (node instanceof hdf5.Group && node.keys.includes("categories") && node.keys.includes("codes")) {
      const categories = node.get("categories");
      const codes = node.get("codes");
      const levels = categories instanceof hdf5.Dataset ? strings(categories.value) : null;
      const codeValues = codes instanceof hdf5.Dataset ? Array.from(codes.value as ArrayLike<number>) : null;
      if (levels && codeValues) column = { levels, codes: codeValues };
    } else if (node instanceof hdf5.Dataset) {
      const values = strings(node.value);
      if (values) column = factorize(values);
    }
    if (!column || column.levels.length > MAX_LEVELS) continue;
    nObs = Math.max(nObs, column.codes.length);
    columns.push({ name, ...column });
  }
  if (nObs === 0) {
    const index = obs.get(indexName);
    if (index instanceof hdf5.Dataset) nObs = index.shape[0] ?? 0;
  }
  return { nObs, columns };
}
