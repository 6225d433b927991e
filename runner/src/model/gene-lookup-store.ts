/**
 * The parts of a stored model version that checking gene names needs: the HGNC snapshot, the
 * orthologue table when the version has one, and the node ids (not the influence bundle, which
 * is over 100 MB). Loaded once per store and version; a failed load is retried by the next call.
 */
import { createHash } from "node:crypto";
import { JobFailure } from "@causeway/contract";
import type { ObjectStore } from "../storage/index.ts";
import { GeneLookup, HGNC_FILES, ORTHOLOGUE_FILE, OrthologueTable, SymbolTable } from "../symbols/index.ts";
import type { ModelManifest } from "./manifest.ts";
import { MANIFEST_FILE, ModelIntegrityError, readManifest } from "./model-files.ts";

const IDS_FILE = "bundle/ids.json";
const sha256 = (buf: Buffer): string => createHash("sha256").update(buf).digest("hex");

/** One file of a stored version, checked against the manifest; null when the manifest lists no such file. */
async function readListed(store: ObjectStore, manifest: ModelManifest, name: string): Promise<Buffer | null> {
  const expected = manifest.files[name];
  if (!expected) return null;
  const buf = await store.get(`models/${manifest.version}/${name}`);
  if (sha256(buf) !== expected.sha256)
    throw new ModelIntegrityError(`model ${manifest.version}: ${name} does not match its checksum`);
  return buf;
}

async function required(store: ObjectStore, manifest: ModelManifest, name: string): Promise<Buffer> {
  const buf = await readListed(store, manifest, name);
  if (!buf) throw new ModelIntegrityError(`model ${manifest.version}: manifest lists no file ${name}`);
  return buf;
}

/** The orthologue table of a stored version, or null when the version was imported without one. */
export async function loadOrthologues(
  store: ObjectStore,
  manifest: ModelManifest,
): Promise<OrthologueTable | null> {
  const buf = await readListed(store, manifest, `hgnc/${ORTHOLOGUE_FILE}`);
  return buf ? OrthologueTable.fromBuffer(buf) : null;
}

async function readLookup(store: ObjectStore, version: string): Promise<GeneLookup> {
  const manifest = await readManifest(store, version);
  if (!manifest) {
    throw new JobFailure(
      "unknown_model_version",
      `Model version "${version}" does not exist.`,
      `no ${MANIFEST_FILE} under models/${version}/`,
    );
  }
  const [geneSymbols, aliasToSymbol, ensemblToSymbol, ids, orthologues] = await Promise.all([
    required(store, manifest, `hgnc/${HGNC_FILES.geneSymbols}`),
    required(store, manifest, `hgnc/${HGNC_FILES.aliasToSymbol}`),
    required(store, manifest, `hgnc/${HGNC_FILES.ensemblToSymbol}`),
    required(store, manifest, IDS_FILE),
    loadOrthologues(store, manifest),
  ]);
  const nodeIds = (JSON.parse(ids.toString("utf8")) as { node_ids: string[] }).node_ids;
  const modelSymbols = new Set(nodeIds.map((id) => id.slice(0, id.lastIndexOf("|"))));
  return new GeneLookup(
    SymbolTable.fromBuffers({ geneSymbols, aliasToSymbol, ensemblToSymbol }),
    orthologues,
    modelSymbols,
  );
}

const cache = new WeakMap<ObjectStore, Map<string, Promise<GeneLookup>>>();

export function loadGeneLookup(store: ObjectStore, version: string): Promise<GeneLookup> {
  let byVersion = cache.get(store);
  if (!byVersion) cache.set(store, (byVersion = new Map()));
  let promise = byVersion.get(version);
  if (!promise) {
    promise = readLookup(store, version);
    byVersion.set(version, promise);
    promise.catch(() => byVersion.delete(version));
  }
  return promise;
}
