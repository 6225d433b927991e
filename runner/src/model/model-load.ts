/**
 * Loading a stored model version: its files read (through a local cache when given) and checked,
 * then assembled into a Model whose typed arrays are views of those bytes, once per process and
 * store.
 */
import { JobFailure } from "@causeway/contract";
import type { ObjectStore } from "../storage/index.ts";
import { HGNC_FILES, SymbolTable } from "../symbols/index.ts";
import type { EvidenceLayer } from "../libraries/gmt.ts";
import { parseLayer } from "../libraries/parse-layer.ts";
import { decodeResolvedLayers, RESOLVED_LAYERS_FILE } from "../libraries/resolved-layers.ts";
import type { ModelManifest } from "./manifest.ts";
import {
  BUNDLE,
  MANIFEST_FILE,
  ModelIntegrityError,
  copyInto,
  prefixOf,
  readManifest,
  readThroughCache,
  sha256,
  typed,
  viewOf,
} from "./model-files.ts";
import { Model } from "./model.ts";
import { nodeLayers, type TransitionGraph } from "./transition.ts";

/** Options of `loadModel`. */
export interface LoadModelOptions {
  /** Local directory to copy the version's files to first (kept between processes). */
  cacheDir?: string;
}

/** Options of `readModelFiles`. */
export interface ReadModelFilesOptions extends LoadModelOptions {
  /**
   * Allocates the bytes of one file, which are read into them (e.g. a view of a
   * SharedArrayBuffer, so threads share one copy); a plain Buffer of its own when omitted.
   */
  alloc?: (bytes: number) => Uint8Array;
}

/** The stored files a load reads from a version, each checked against the manifest's checksum. */
export interface StoredModelFiles {
  manifest: ModelManifest;
  /** File name under `models/<version>/` → its bytes. */
  files: Record<string, Uint8Array>;
}

const loaded = new WeakMap<ObjectStore, Map<string, Promise<Model>>>();

/**
 * Loads a stored model version once per process and store (later calls share the promise).
 * Throws JobFailure('unknown_model_version') when the version has no manifest.
 */
export function loadModel(
  store: ObjectStore,
  version: string,
  options: LoadModelOptions = {},
): Promise<Model> {
  let byVersion = loaded.get(store);
  if (!byVersion) loaded.set(store, (byVersion = new Map()));
  let promise = byVersion.get(version);
  if (!promise) {
    promise = readModelFiles(store, version, options).then(assembleModel);
    byVersion.set(version, promise);
    // A failed load is not remembered, so a later job can retry (e.g. after a storage fault).
    promise.catch(() => byVersion.delete(version));
  }
  return promise;
}

/**
 * Reads the files a Model is assembled from (`assembleModel`), each checked against the
 * manifest. Throws JobFailure('unknown_model_version') when the version has no manifest.
 */
export async function readModelFiles(
  store: ObjectStore,
  version: string,
  options: ReadModelFilesOptions = {},
): Promise<StoredModelFiles> {
  const manifest = await readManifest(store, version);
  if (!manifest) {
    throw new JobFailure(
      "unknown_model_version",
      `Model version "${version}" does not exist. Use a published model version or omit it for the default.`,
      `no ${MANIFEST_FILE} under ${prefixOf(version)}`,
    );
  }
  const alloc = options.alloc;
  const read = async (name: string): Promise<Uint8Array> => {
    const expected = manifest.files[name];
    if (!expected) throw new ModelIntegrityError(`model ${version}: manifest lists no file ${name}`);
    if (options.cacheDir)
      return readThroughCache(store, version, name, expected.sha256, options.cacheDir, alloc);
    const got = await store.get(prefixOf(version) + name);
    if (sha256(got) !== expected.sha256)
      throw new ModelIntegrityError(`model ${version}: ${name} does not match its checksum`);
    return alloc ? copyInto(got, alloc) : got;
  };
  const names = [
    ...Object.values(HGNC_FILES).map((n) => `hgnc/${n}`),
    ...Object.values(BUNDLE),
    ...storedLayerFiles(manifest),
  ];
  const files: Record<string, Uint8Array> = {};
  // One at a time: the large arrays are read whole, and the peak stays one file above the result.
  for (const name of names) files[name] = await read(name);
  // The libraries themselves are read against their checksums (a few ms) even when their
  // resolved form is what the load uses, so a tampered source file is refused either way.
  if (manifest.files[RESOLVED_LAYERS_FILE])
    await Promise.all((manifest.layers ?? []).map((l) => read(`layers/${l.file}`)));
  return { manifest, files };
}

/** The layer files a load keeps: the resolved sets when stored, else the GMT files to parse. */
function storedLayerFiles(manifest: ModelManifest): string[] {
  const layers = manifest.layers ?? [];
  if (layers.length === 0) return [];
  if (manifest.files[RESOLVED_LAYERS_FILE]) return [RESOLVED_LAYERS_FILE];
  return layers.map((l) => `layers/${l.file}`);
}

/**
 * A Model around a version's checked files. The typed arrays are views of the files' bytes (no
 * copy), so a Model assembled on shared buffers shares them.
 */
export function assembleModel({ manifest, files }: StoredModelFiles): Model {
  const file = (name: string): Uint8Array => {
    const bytes = files[name];
    if (!bytes) throw new ModelIntegrityError(`model ${manifest.version}: ${name} was not read`);
    return bytes;
  };
  const json = <T>(name: string): T => JSON.parse(viewOf(file(name)).toString("utf8")) as T;
  const ids = json<{ node_ids: string[]; source_proteins: number[] }>(BUNDLE.ids);
  const ev = json<{ resource: string[]; evidence: string[] }>(BUNDLE.edgeEvidence);
  const nodeIds = ids.node_ids;
  const n = nodeIds.length;
  const { isRna, layerIndex, proteins, rnas } = nodeLayers(nodeIds);
  const graph: TransitionGraph = {
    nodeIds,
    isRna,
    layerIndex,
    proteinNodes: Int32Array.from(proteins),
    rnaNodes: Int32Array.from(rnas),
    p: {
      nRows: n,
      nCols: n,
      indptr: typed(Int32Array, file(BUNDLE.pIndptr)),
      indices: typed(Int32Array, file(BUNDLE.pIndices)),
      data: typed(Float64Array, file(BUNDLE.pData)),
    },
    sign: typed(Int8Array, file(BUNDLE.pSign)),
    edgeType: typed(Uint8Array, file(BUNDLE.pEdgeType)),
    resource: ev.resource,
    evidence: ev.evidence,
  };
  const hgnc = (name: string): Buffer => viewOf(file(`hgnc/${name}`));
  const symbols = SymbolTable.fromBuffers({
    geneSymbols: hgnc(HGNC_FILES.geneSymbols),
    aliasToSymbol: hgnc(HGNC_FILES.aliasToSymbol),
    ensemblToSymbol: hgnc(HGNC_FILES.ensemblToSymbol),
  });
  return new Model({
    manifest,
    symbols,
    layers: storedLayers(manifest, file, symbols),
    graph,
    sourceProteins: Int32Array.from(ids.source_proteins),
    influence: typed(Float32Array, file(BUNDLE.influence)),
    baseline: typed(Float64Array, file(BUNDLE.baseline)),
  });
}

/**
 * A version's evidence layers: decoded from the resolved form stored at import, or parsed from
 * the GMT files for a version imported before that form existed (same sets either way).
 */
function storedLayers(
  manifest: ModelManifest,
  file: (name: string) => Uint8Array,
  symbols: SymbolTable,
): EvidenceLayer[] {
  const layers = manifest.layers ?? [];
  if (layers.length === 0) return [];
  if (manifest.files[RESOLVED_LAYERS_FILE]) {
    const decoded = decodeResolvedLayers(file(RESOLVED_LAYERS_FILE));
    const same =
      decoded.length === layers.length &&
      decoded.every((d, i) => d.name === layers[i]!.name && d.kind === layers[i]!.kind);
    if (!same)
      throw new ModelIntegrityError(`model ${manifest.version}: ${RESOLVED_LAYERS_FILE} names other layers`);
    return decoded;
  }
  return layers.map((l) => parseLayer(file(`layers/${l.file}`), l.name, l.kind, symbols));
}
