/**
 * Immutable model versions in the object store (model.md §12.1, §15.2): `models/<version>/`
 * holds the manifest, the network file, the HGNC snapshot and the influence bundle. Typed
 * arrays are stored raw in the platform's byte order, little-endian on every supported target.
 */
import { createHash } from "node:crypto";
import { mkdir, open, readFile, rename, rm } from "node:fs/promises";
import { basename, dirname, join } from "node:path";
import { JobFailure, UNNAMED_MANIFEST_SCORING } from "@causeway/contract";
import { ObjectNotFound, type ObjectStore } from "../storage/index.ts";
import { HGNC_FILES, ORTHOLOGUE_FILE, SymbolTable } from "../symbols/index.ts";
import { parseGmt, type EvidenceLayer, type LayerKind } from "../libraries/gmt.ts";
import {
  decodeResolvedLayers,
  encodeResolvedLayers,
  RESOLVED_LAYERS_FILE,
} from "../libraries/resolved-layers.ts";
import { computeInfluence, type InfluenceResult, type ProgressCallback } from "./influence.ts";
import { TOLERANCE, ZERO_BELOW, iterationCount } from "./influence-kernel.ts";
import type { SCORING_VERSIONS } from "./manifest.ts";
import { BUNDLE_FORMAT, DEFAULT_MAX_PATH_LENGTH, ModelManifest, manifestIdentity } from "./manifest.ts";
import { Model } from "./model.ts";
import { parseNetwork, type Network } from "./network.ts";
import {
  V1_WALK,
  buildTransitionGraph,
  nodeLayers,
  walkMatrices,
  type TransitionGraph,
  type WalkParams,
} from "./transition.ts";

/** The manifest's key under `models/<version>/`. */
export const MANIFEST_FILE = "model_manifest.json";
const BUNDLE = {
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

/** Options of `importModel`. */
export interface ImportModelOptions {
  networkPath: string;
  hgncDir: string;
  version: string;
  store: ObjectStore;
  /** Worker threads for the influence computation (default: available parallelism). */
  threads?: number;
  /** Progress of the influence computation, in column blocks. */
  onProgress?: ProgressCallback;
  /** Walk parameters; model v1 when omitted. */
  walk?: WalkParams;
  /** Scoring recorded in the manifest (selects the target scoring of jobs); v1 when omitted. */
  scoring?: (typeof SCORING_VERSIONS)[number];
  /**
   * Evidence layers stored with the version (gene-set libraries, model v3): the file, a name
   * (default: the file name without `.gmt` / `.gmt.gz`) and what its sets say.
   */
  layers?: readonly LayerInput[];
  /**
   * Versions in the same store whose influence bundle may be this one's (same network, HGNC
   * files and walk: model v2 and v3 share one): the first that matches is read instead of
   * computed again. Versions that do not match are skipped.
   */
  reuseFrom?: readonly string[];
}

/** One evidence layer to import. */
export interface LayerInput {
  path: string;
  kind: LayerKind;
  name?: string;
}

const sha256 = (buf: Buffer | Uint8Array): string => createHash("sha256").update(buf).digest("hex");
const prefixOf = (version: string): string => `models/${version}/`;
const bytesOf = (a: ArrayBufferView): Buffer => Buffer.from(a.buffer, a.byteOffset, a.byteLength);

async function readVersionFromPackageJson(): Promise<string> {
  const pkg = JSON.parse(await readFile(new URL("../../../package.json", import.meta.url), "utf8")) as {
    version?: unknown;
  };
  return typeof pkg.version === "string" ? pkg.version : "unknown";
}

interface Inputs {
  network: Buffer;
  networkFile: string;
  hgnc: Record<string, Buffer>;
  layers: { name: string; kind: LayerKind; file: string; content: Buffer }[];
  /**
   * Stored with the version and listed in its files, but not part of its identity: it changes no
   * number of a human analysis, and versions imported before it existed stay re-importable.
   */
  orthologues: Buffer | null;
}

const layerNameOf = (path: string): string => basename(path).replace(/\.gmt(\.gz)?$/, "");

async function readLayers(layers: readonly LayerInput[] = []): Promise<Inputs["layers"]> {
  const out = await Promise.all(
    layers.map(async (l) => ({
      name: l.name ?? layerNameOf(l.path),
      kind: l.kind,
      file: basename(l.path),
      content: await readFile(l.path),
    })),
  );
  const names = new Set(out.map((l) => l.file));
  if (names.size !== out.length) throw new Error("evidence layers: two layers share a file name");
  return out;
}

async function readInputs(
  networkPath: string,
  hgncDir: string,
  layers?: readonly LayerInput[],
): Promise<Inputs> {
  const names = Object.values(HGNC_FILES);
  const [network, orthologues, ...hgnc] = await Promise.all([
    readFile(networkPath),
    // Optional: the mouse–human orthologue table travels with the version when the directory has it.
    readFile(join(hgncDir, ORTHOLOGUE_FILE)).catch((err: NodeJS.ErrnoException) => {
      if (err.code === "ENOENT") return null;
      throw err;
    }),
    ...names.map((n) => readFile(join(hgncDir, n))),
  ]);
  return {
    network: network!,
    networkFile: basename(networkPath),
    hgnc: Object.fromEntries(names.map((n, i) => [n, hgnc[i]!])),
    layers: await readLayers(layers),
    orthologues,
  };
}

const layerManifest = (inputs: Inputs): ModelManifest["layers"] =>
  inputs.layers.length === 0
    ? undefined
    : inputs.layers.map((l) => ({ name: l.name, kind: l.kind, file: l.file, sha256: sha256(l.content) }));

function identityOf(inputs: Inputs, walk: WalkParams, scoring: ImportModelOptions["scoring"]): string {
  return manifestIdentity({
    scoring,
    layers: layerManifest(inputs),
    bundle_format: BUNDLE_FORMAT,
    network: { file: inputs.networkFile, sha256: sha256(inputs.network) },
    hgnc: Object.fromEntries(Object.entries(inputs.hgnc).map(([k, v]) => [k, sha256(v)])),
    alpha: walk.alpha,
    rho: walk.rho,
    hub_exponent: walk.hubExponent,
    tolerance: TOLERANCE,
    default_max_path_length: DEFAULT_MAX_PATH_LENGTH,
  });
}

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

/**
 * Validates a network, computes its influence bundle and stores it as the immutable version
 * `version`. Importing the same inputs again is a no-op that returns the stored manifest;
 * different inputs under an existing version throw ModelVersionConflict.
 */
export async function importModel(options: ImportModelOptions): Promise<ModelManifest> {
  const walk = options.walk ?? V1_WALK;
  const inputs = await readInputs(options.networkPath, options.hgncDir, options.layers);
  const existing = await readManifest(options.store, options.version);
  if (existing) {
    if (manifestIdentity(existing) === identityOf(inputs, walk, options.scoring)) return existing;
    throw new ModelVersionConflict(options.version);
  }

  const symbols = SymbolTable.fromBuffers({
    geneSymbols: inputs.hgnc[HGNC_FILES.geneSymbols]!,
    aliasToSymbol: inputs.hgnc[HGNC_FILES.aliasToSymbol]!,
    ensemblToSymbol: inputs.hgnc[HGNC_FILES.ensemblToSymbol]!,
  });
  const reused = await reusableInfluence(options.store, options.reuseFrom ?? [], inputs, walk);
  const { network, graph, result, iterations } = await computeBundle(inputs.network, symbols, walk, {
    ...options,
    reuse: reused,
  });
  const files: Record<string, Buffer> = {
    [`network/${inputs.networkFile}`]: inputs.network,
    ...Object.fromEntries(Object.entries(inputs.hgnc).map(([name, buf]) => [`hgnc/${name}`, buf])),
    ...(inputs.orthologues ? { [`hgnc/${ORTHOLOGUE_FILE}`]: inputs.orthologues } : {}),
    [BUNDLE.ids]: Buffer.from(
      JSON.stringify({ node_ids: graph.nodeIds, source_proteins: Array.from(result.sourceProteins) }),
    ),
    [BUNDLE.influence]: bytesOf(result.influence),
    [BUNDLE.baseline]: bytesOf(result.baseline),
    [BUNDLE.pIndptr]: bytesOf(graph.p.indptr),
    [BUNDLE.pIndices]: bytesOf(graph.p.indices),
    [BUNDLE.pData]: bytesOf(graph.p.data),
    [BUNDLE.pSign]: bytesOf(graph.sign),
    [BUNDLE.pEdgeType]: bytesOf(graph.edgeType),
    [BUNDLE.edgeEvidence]: Buffer.from(
      JSON.stringify({ resource: graph.resource, evidence: graph.evidence }),
    ),
    ...Object.fromEntries(inputs.layers.map((l) => [`layers/${l.file}`, l.content])),
  };
  // Parse every layer before storing anything, so a malformed file fails the import cleanly;
  // the parsed sets are stored too, so a load need not parse again.
  const parsed = inputs.layers.map((l) => parseGmt(l.content, l.name, l.kind, symbols));
  if (parsed.length > 0) files[RESOLVED_LAYERS_FILE] = encodeResolvedLayers(parsed);
  const manifest = await manifestOf({
    layers: layerManifest(inputs),
    version: options.version,
    network: { file: inputs.networkFile, sha256: sha256(inputs.network) },
    hgnc: Object.fromEntries(Object.entries(inputs.hgnc).map(([k, v]) => [k, sha256(v)])),
    files: Object.fromEntries(
      Object.entries(files).map(([name, buf]) => [name, { sha256: sha256(buf), bytes: buf.length }]),
    ),
    scoring: options.scoring,
    bundle: { walk, network, graph, result, iterations },
  });
  const prefix = prefixOf(options.version);
  for (const [name, buf] of Object.entries(files)) await options.store.put(prefix + name, buf);
  // The manifest goes last: its presence marks a complete version.
  await options.store.put(
    prefix + MANIFEST_FILE,
    JSON.stringify(manifest, null, 2) + "\n",
    "application/json",
  );
  return manifest;
}

/**
 * The manifest of a computed bundle: what an imported version stores and an in-memory model
 * carries (files and checksums only for the former).
 */
async function manifestOf(m: {
  version: string;
  network: ModelManifest["network"];
  hgnc: ModelManifest["hgnc"];
  files: ModelManifest["files"];
  scoring: ModelManifest["scoring"] | undefined;
  layers?: ModelManifest["layers"];
  bundle: Pick<Awaited<ReturnType<typeof computeBundle>>, "network" | "graph" | "result" | "iterations"> & {
    walk: WalkParams;
  };
}): Promise<ModelManifest> {
  const { walk, network, graph, result, iterations } = m.bundle;
  return {
    version: m.version,
    bundle_format: BUNDLE_FORMAT,
    network: m.network,
    hgnc: m.hgnc,
    alpha: walk.alpha,
    rho: walk.rho,
    hub_exponent: walk.hubExponent,
    weight_rule: network.weightRule,
    scoring: m.scoring ?? UNNAMED_MANIFEST_SCORING,
    ...(m.layers ? { layers: m.layers } : {}),
    iterations,
    tolerance: TOLERANCE,
    zero_below: ZERO_BELOW,
    default_max_path_length: DEFAULT_MAX_PATH_LENGTH,
    counts: countsOf(network, graph, result.sourceProteins.length),
    files: m.files,
    created_at: new Date().toISOString(),
    runner_version: await readVersionFromPackageJson(),
  };
}

/**
 * The influence bundle of the first version in `candidates` that was computed from the same
 * network, HGNC files and walk, read from the store (checked against its manifest), or null.
 */
async function reusableInfluence(
  store: ObjectStore,
  candidates: readonly string[],
  inputs: Inputs,
  walk: WalkParams,
): Promise<InfluenceResult | null> {
  const hgnc = Object.fromEntries(Object.entries(inputs.hgnc).map(([k, v]) => [k, sha256(v)]));
  const sameHgnc = (other: Record<string, string>) =>
    Object.keys(other).length === Object.keys(hgnc).length &&
    Object.entries(hgnc).every(([k, v]) => other[k] === v);
  const networkSha = sha256(inputs.network);
  for (const version of candidates) {
    const m = await readManifest(store, version).catch(() => null);
    if (
      !m ||
      m.network.sha256 !== networkSha ||
      !sameHgnc(m.hgnc) ||
      m.alpha !== walk.alpha ||
      m.rho !== walk.rho ||
      m.hub_exponent !== walk.hubExponent ||
      m.tolerance !== TOLERANCE
    )
      continue;
    const read = async (name: string): Promise<Buffer> => {
      const buf = await store.get(prefixOf(version) + name);
      if (sha256(buf) !== m.files[name]?.sha256)
        throw new ModelIntegrityError(`model ${version}: ${name} does not match its checksum`);
      return buf;
    };
    const ids = JSON.parse((await read(BUNDLE.ids)).toString("utf8")) as { source_proteins: number[] };
    const baseline = typed(Float64Array, await read(BUNDLE.baseline));
    return {
      sourceProteins: Int32Array.from(ids.source_proteins),
      nRna: baseline.length,
      influence: typed(Float32Array, await read(BUNDLE.influence)),
      baseline,
    };
  }
  return null;
}

/**
 * Parses, validates and computes the influence bundle of a network (no storage); `reuse` is
 * the bundle of the same network and walk read from another version (only the graph is built).
 */
async function computeBundle(
  networkContent: Buffer | string,
  symbols: SymbolTable,
  walk: WalkParams,
  options: { threads?: number; onProgress?: ProgressCallback; reuse?: InfluenceResult | null },
) {
  const network = parseNetwork(networkContent, symbols);
  const graph = buildTransitionGraph(network, walk);
  const iterations = iterationCount(walk.alpha);
  const { reuse } = options;
  if (reuse && reuse.nRna === graph.rnaNodes.length) return { network, graph, result: reuse, iterations };
  const { q, r } = walkMatrices(graph, walk.alpha);
  const result = await computeInfluence(q, r, {
    iterations,
    threads: options.threads,
    onProgress: options.onProgress,
  });
  return { network, graph, result, iterations };
}

/** Options of `buildModel`. */
export interface BuildModelOptions {
  /** Network file contents (gzip or plain TSV). */
  network: Buffer | string;
  symbols: SymbolTable;
  walk?: WalkParams;
  threads?: number;
  onProgress?: ProgressCallback;
  /** Recorded in the in-memory manifest; default "in-memory". */
  version?: string;
  /** Scoring recorded in the manifest; v1 when omitted. */
  scoring?: (typeof SCORING_VERSIONS)[number];
}

/** Builds a model in memory without storing it (tests, fixtures, one-off analyses). */
export async function buildModel(options: BuildModelOptions): Promise<Model> {
  const walk = options.walk ?? V1_WALK;
  const { network, graph, result, iterations } = await computeBundle(
    options.network,
    options.symbols,
    walk,
    options,
  );
  const manifest = await manifestOf({
    version: options.version ?? "in-memory",
    network: { file: "in-memory", sha256: sha256(Buffer.from(options.network)) },
    hgnc: {},
    files: {},
    scoring: options.scoring,
    bundle: { walk, network, graph, result, iterations },
  });
  return new Model({
    manifest,
    symbols: options.symbols,
    graph,
    sourceProteins: result.sourceProteins,
    influence: result.influence,
    baseline: result.baseline,
  });
}

function countsOf(network: Network, graph: TransitionGraph, sources: number): ModelManifest["counts"] {
  return {
    proteins: graph.proteinNodes.length,
    rnas: graph.rnaNodes.length,
    sources,
    edges: network.edges.length,
    signaling_edges: network.edges.filter((e) => e.edgeType === "signaling").length,
    transcriptional_edges: network.edges.filter((e) => e.edgeType === "transcriptional").length,
  };
}

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
  return layers.map((l) => parseGmt(file(`layers/${l.file}`), l.name, l.kind, symbols));
}

/** A Buffer over the same bytes (no copy; works for SharedArrayBuffer-backed views too). */
const viewOf = (bytes: Uint8Array): Buffer => Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);

function copyInto(bytes: Uint8Array, alloc: (bytes: number) => Uint8Array): Uint8Array {
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
function typed<T extends ArrayBufferView>(ctor: ViewCtor<T>, buf: Uint8Array): T {
  if (buf.length % ctor.BYTES_PER_ELEMENT !== 0)
    throw new ModelIntegrityError("bundle array has a partial element");
  if (buf.byteOffset === 0 && buf.byteLength === buf.buffer.byteLength)
    return new ctor(buf.buffer, 0, buf.length / ctor.BYTES_PER_ELEMENT);
  const out = new ctor(buf.length / ctor.BYTES_PER_ELEMENT);
  new Uint8Array(out.buffer, out.byteOffset, out.byteLength).set(buf);
  return out;
}

/** A version's file through the local cache; verified against its checksum once per read. */
async function readThroughCache(
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
