/**
 * Importing a model version: validates a network and its HGNC snapshot, computes the influence
 * bundle (or reuses an identical one) and stores the immutable version; and `buildModel`, the
 * same bundle in memory without storing it.
 */
import { readFile } from "node:fs/promises";
import { basename, join } from "node:path";
import { UNNAMED_MANIFEST_SCORING } from "@causeway/contract";
import type { ObjectStore } from "../storage/index.ts";
import { HGNC_FILES, ORTHOLOGUE_FILE, SymbolTable } from "../symbols/index.ts";
import type { LayerKind } from "../libraries/gmt.ts";
import { parseLayer } from "../libraries/parse-layer.ts";
import { encodeResolvedLayers, RESOLVED_LAYERS_FILE } from "../libraries/resolved-layers.ts";
import { computeInfluence, type InfluenceResult, type ProgressCallback } from "./influence.ts";
import { TOLERANCE, ZERO_BELOW, iterationCount } from "./influence-kernel.ts";
import type { SCORING_VERSIONS } from "./manifest.ts";
import { BUNDLE_FORMAT, DEFAULT_MAX_PATH_LENGTH, type ModelManifest, manifestIdentity } from "./manifest.ts";
import {
  BUNDLE,
  MANIFEST_FILE,
  ModelIntegrityError,
  ModelVersionConflict,
  bytesOf,
  prefixOf,
  readManifest,
  sha256,
  typed,
} from "./model-files.ts";
import { Model } from "./model.ts";
import { parseNetwork, type Network } from "./network.ts";
import {
  V1_WALK,
  buildTransitionGraph,
  walkMatrices,
  type TransitionGraph,
  type WalkParams,
} from "./transition.ts";

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
  const parsed = inputs.layers.map((l) => parseLayer(l.content, l.name, l.kind, symbols));
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
