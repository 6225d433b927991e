/**
 * Opening uploaded HDF5 files with h5wasm without letting the file reach anything else on the
 * host. HDF5 follows external links, virtual-dataset sources and external raw-data files by
 * opening other paths; h5wasm's Node build does that through Node's `fs.openSync` (NODERAWFS),
 * so while a file is being read every open of any other path is refused. This backs up the
 * structural walk (inventory.ts), which rejects such files with a clear message first.
 */
import fs from "node:fs";
import { resolve } from "node:path";
import h5wasm from "h5wasm/node";
import type { File as H5File } from "h5wasm/node";
import { H5LibraryFailure, invalidH5ad } from "./errors.ts";

type H5Module = Awaited<typeof h5wasm.ready>;

let modulePromise: Promise<H5Module> | null = null;

/** The h5wasm module with HDF5 errors turned into exceptions (by default they only print). */
export function h5Module(): Promise<H5Module> {
  modulePromise ??= h5wasm.ready.then((m) => {
    m.activate_throwing_error_handler();
    return m;
  });
  return modulePromise;
}

const HDF5_SIGNATURE = Buffer.from([0x89, 0x48, 0x44, 0x46, 0x0d, 0x0a, 0x1a, 0x0a]);

/**
 * Whether the HDF5 signature is where the format puts it: offset 0 or after a user block of
 * 512·2^k bytes. Checked before HDF5 sees the file so that "not HDF5" gets its own message.
 */
export function hasHdf5Signature(path: string): boolean {
  const fd = fs.openSync(path, "r");
  try {
    const size = fs.fstatSync(fd).size;
    const buf = Buffer.alloc(8);
    for (let offset = 0; offset + 8 <= size && offset <= 1 << 24; offset = offset === 0 ? 512 : offset * 2) {
      if (fs.readSync(fd, buf, 0, 8, offset) === 8 && buf.equals(HDF5_SIGNATURE)) return true;
    }
    return false;
  } finally {
    fs.closeSync(fd);
  }
}

/**
 * What a file that is not HDF5 most likely is, from its first bytes, as a hint for the message:
 * people upload a compressed .h5ad, an R object or a text table where an .h5ad belongs.
 */
export function whatItIsInstead(path: string): string {
  const fd = fs.openSync(path, "r");
  const head = Buffer.alloc(512);
  let n: number;
  try {
    n = fs.readSync(fd, head, 0, head.length, 0);
  } finally {
    fs.closeSync(fd);
  }
  const bytes = head.subarray(0, n);
  if (bytes[0] === 0x1f && bytes[1] === 0x8b)
    return " It is gzip-compressed (a .gz file, or an R object saved with saveRDS): decompress an .h5ad.gz first; convert an R object to .h5ad (e.g. with zellkonverter or SeuratDisk).";
  if (bytes.subarray(0, 4).equals(Buffer.from("PK\x03\x04", "latin1")))
    return " It is a ZIP archive: extract the .h5ad inside and upload that.";
  const text = bytes.toString("latin1");
  if (n > 0 && /^[\t\n\r\x20-\x7e]*$/.test(text) && /[\t,]/.test(text))
    return " It looks like a text table: build an AnnData object from the counts (anndata or scanpy) and save it with write_h5ad.";
  return "";
}

/** The last message of an HDF5 error stack ("file signature not found"), for detail fields. */
export function summarizeH5Error(err: unknown): string {
  const text = err instanceof Error ? err.message : String(err);
  const lines = [...text.matchAll(/#\d+: .*? in ([A-Za-z0-9_]+)\(\): (.*)$/gm)];
  const last = lines.at(-1);
  if (last) return `${last[1]}: ${last[2]!.trim()}`;
  return text.split("\n")[0]!.slice(0, 300);
}

/**
 * Runs `fn` on the file opened read-only, synchronously, with every other path unopenable,
 * and closes the file whatever happens. HDF5 errors and fs refusals become `invalid_h5ad`;
 * JobFailures thrown by `fn` pass through.
 */
export function withH5File<T>(module: H5Module, path: string, fn: (file: H5File) => T): T {
  const allowed = resolve(path);
  if (!fs.existsSync(allowed)) throw invalidH5ad("The uploaded file could not be found.", "missing file");
  if (!hasHdf5Signature(allowed)) {
    throw invalidH5ad(
      `The file is not an HDF5 file; upload an AnnData .h5ad file written by anndata.${whatItIsInstead(allowed)}`,
      "no HDF5 signature",
    );
  }
  const realOpen = fs.openSync;
  // Node's fs functions are plain writable properties; h5wasm calls them through the module object.
  fs.openSync = ((p: fs.PathLike, ...rest: unknown[]) => {
    if (resolve(String(p)) !== allowed) {
      const err = new Error(`EACCES: only the uploaded file may be opened`) as NodeJS.ErrnoException;
      err.code = "EACCES";
      throw err;
    }
    return (realOpen as (...a: unknown[]) => number)(p, ...rest);
  }) as typeof fs.openSync;
  let file: H5File | null = null;
  try {
    try {
      file = new h5wasm.File(allowed, "r");
    } catch (err) {
      throw new H5LibraryFailure(
        "The file could not be opened as HDF5 (it may be truncated or damaged); re-export it with anndata's write_h5ad.",
        summarizeH5Error(err),
      );
    }
    if (file.file_id < 0n) throw invalidH5ad("The file could not be opened as HDF5.", "negative file id");
    try {
      return fn(file);
    } catch (err) {
      if (err instanceof Error && err.name === "JobFailure") throw err;
      throw new H5LibraryFailure(
        "The file could not be read as AnnData (an HDF5 read failed); re-export it with anndata's write_h5ad.",
        summarizeH5Error(err),
      );
    }
  } finally {
    fs.openSync = realOpen;
    if (file && file.file_id >= 0n) {
      try {
        file.close();
      } catch {
        // Closing after an HDF5 error can fail too; the handle is abandoned either way.
      }
    }
  }
}
