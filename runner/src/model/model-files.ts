/**
 * How a model version lies in the object store (model.md §12.1, §15.2): `models/<version>/` holds
 * the manifest, the network file, the HGNC snapshot and the influence bundle, each file checked
 * against the manifest's checksum when read. Typed arrays are stored raw in the platform's byte
 * order, little-endian on every supported target.
 */
import { createHash } from "node:crypto";
import { mkdir, open, readFile, rename, rm } from "node:fs/promises";
import { basename, dirname, join } from "node:path";
import { ObjectNotFound, type ObjectStore } from "../storage/index.ts";
import { ModelManifest } from "./manifest.ts";

/** The manifest's key under `models/<version>/`. */
export const MANIFEST_FILE = "model_manifest.json";
export const BUNDLE = {
  ids: "bundle/ids.json",
  influence: "bundle/influence.f32",
  baseline: "bundle/baseline.f64",
  pIndptr: "bundle/p_indptr.i32",
  pIndices: "bundle/p_indices.i32",
  pData: "bundle/p_data.f64",
  pSign: "bundle/p_sign.i8",
  pEdgeType: "bundle/p_edge_type.u8",
  edgeEvidence: "bundle/edge_evidence.json",
} as const;

/** An import that would change the content of an existing, immutable version. */
export class ModelVersionConflict extends Error {
  readonly version: string;
  constructor(version: string) {
    super(`model version "${version}" already exists with different content; versions are immutable`);
    this.name = "ModelVersionConflict";
    this.version = version;
  }
}

/** Stored bytes that do not match the manifest's checksum. */
export class ModelIntegrityError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "ModelIntegrityError";
  }
}

export const sha256 = (buf: Buffer | Uint8Array): string => createHash("sha256").update(buf).digest("hex");
export const prefixOf = (version: string): string => `models/${version}/`;
export const bytesOf = (a: ArrayBufferView): Buffer => Buffer.from(a.buffer, a.byteOffset, a.byteLength);

export async function readManifest(store: ObjectStore, version: string): Promise<ModelManifest | null> {
  let raw: Buffer;
  try {
    raw = await store.get(prefixOf(version) + MANIFEST_FILE);
  } catch (err) {
    if (err instanceof ObjectNotFound) return null;
    throw err;
  }
  return ModelManifest.parse(JSON.parse(raw.toString("utf8")));
}

/** A Buffer over the same bytes (no copy; works for SharedArrayBuffer-backed views too). */
export const viewOf = (bytes: Uint8Array): Buffer =>
  Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);

export function copyInto(bytes: Uint8Array, alloc: (bytes: number) => Uint8Array): Uint8Array {
  const out = alloc(bytes.byteLength);
  out.set(bytes);
  return out;
}

type TypedCtor<T> = { new (length: number): T; BYTES_PER_ELEMENT: number };

type ViewCtor<T> = TypedCtor<T> & {
  new (buffer: ArrayBuffer | SharedArrayBuffer, byteOffset: number, length: number): T;
};

/**
 * The raw bytes as a typed array: a view of the buffer when the buffer owns its whole
 * ArrayBuffer (as a file read does), else an aligned copy. The view halves the peak memory of
 * a load (the influence matrix alone is over 100 MB) and skips a copy.
 */
export function typed<T extends ArrayBufferView>(ctor: ViewCtor<T>, buf: Uint8Array): T {
  if (buf.length % ctor.BYTES_PER_ELEMENT !== 0)
    throw new ModelIntegrityError("bundle array has a partial element");
  if (buf.byteOffset === 0 && buf.byteLength === buf.buffer.byteLength)
    return new ctor(buf.buffer, 0, buf.length / ctor.BYTES_PER_ELEMENT);
  const out = new ctor(buf.length / ctor.BYTES_PER_ELEMENT);
  new Uint8Array(out.buffer, out.byteOffset, out.byteLength).set(buf);
  return out;
}

/** A version's file through the local cache; verified against its checksum once per read. */
export async function readThroughCache(
  store: ObjectStore,
  version: string,
  name: string,
  sha: string,
  cacheDir: string,
  alloc: ((bytes: number) => Uint8Array) | undefined,
): Promise<Uint8Array> {
  const path = join(cacheDir, "models", version, name);
  const readLocal = (p: string): Promise<Uint8Array> => (alloc ? readFileInto(p, alloc) : readFile(p));
  try {
    const local = await readLocal(path);
    if (sha256(local) === sha) return local;
  } catch {
    // Not cached yet.
  }
  await mkdir(dirname(path), { recursive: true });
  const tmp = `${path}.${process.pid}.tmp`;
  try {
    await store.getToFile(prefixOf(version) + name, tmp);
    const fetched = await readLocal(tmp);
    if (sha256(fetched) !== sha)
      throw new ModelIntegrityError(`model ${version}: ${name} does not match its checksum`);
    await rename(tmp, path);
    return fetched;
  } finally {
    await rm(tmp, { force: true });
  }
}

/** A whole file read straight into bytes from `alloc` (no intermediate copy of a large array). */
async function readFileInto(path: string, alloc: (bytes: number) => Uint8Array): Promise<Uint8Array> {
  const handle = await open(path, "r");
  try {
    const { size } = await handle.stat();
    const out = alloc(size);
    let offset = 0;
    while (offset < size) {
      const { bytesRead } = await handle.read(out, offset, size - offset, offset);
      if (bytesRead === 0) throw new ModelIntegrityError(`${basename(path)} shrank while it was read`);
      offset += bytesRead;
    }
    return out;
  } finally {
    await handle.close();
  }
}
