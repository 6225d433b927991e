/**
 * The runner functions the API calls in-process: the upload validator, model import, the
 * intermediary-protein aggregation and the causal-graph renderer. Each module is imported on
 * first use (typed by type-only imports), so heavy dependencies (h5wasm's worker, canvas) load
 * only in the routes that need them and a server that never renders never loads them. Tests
 * inject fakes through the RunnerPieces interface.
 */
import { join } from "node:path";
import type { ObjectStore } from "@causeway/runner/storage";

import type * as UploadModule from "@causeway/runner/anndata/upload";
import type * as CausalModule from "@causeway/runner/causal";
import type * as LibrariesModule from "@causeway/runner/libraries";
import type * as ModelModule from "@causeway/runner/model";
import type * as ScoringModule from "@causeway/runner/scoring";
import type { ScoringVersion, Species } from "@causeway/contract";
import type { GraphRenderRequest, GraphRenderResponse } from "./services/causal/graph-render-worker.ts";
import { WorkerCalls } from "./services/status/worker-calls.ts";

export interface UploadSummary {
  nObs: number;
  nVars: number;
}

/** A causal_paths.tsv row as the aggregation reads it. */
export interface PathRow {
  deg: string;
  path: string;
  score_path_given_target: number | null;
}

/** A gene list resolved against a model version (POST /v1/genes/resolve). */
export interface GeneLookupPiece {
  readonly hasOrthologues: boolean;
  resolveAll(
    genes: readonly string[],
    species: Species,
  ): {
    n_input: number;
    n_recognised: number;
    genes: {
      input: string;
      symbol: string | null;
      in_model: boolean;
      suggestion?: string;
      ambiguous?: string[];
    }[];
  };
}

/** The pieces, as the API uses them. */
export interface RunnerPieces {
  /** Throws an error named "UploadRejected" with `code` and a user-facing `message` on refusal. */
  validateUpload(path: string, options: { maxObs: number | null }): Promise<UploadSummary>;
  /** Starts the validator while an upload is received (it takes ~0.3 s to load after an idle period). */
  prepareUploadValidator(): void;
  importModel(options: {
    networkPath: string;
    hgncDir: string;
    version: string;
    scoring: ScoringVersion;
    store: ObjectStore;
    onProgress?: (message: string) => void;
    /** Gene-set libraries (evidence layers of v3 and v4) stored with the version; kinds from the folder layout. */
    librariesDir?: string;
    /** Protein–protein interaction pair files (evidence layers of v4) stored with the version. */
    ppiFiles?: readonly string[];
    /** A machine-wide bundle cache (model-bundle-cache.ts); none when unset. */
    cacheDir?: string;
    /** Stored versions whose influence bundle may be reused (same network and walk). */
    reuseFrom?: readonly string[];
    /** Nothing waits for this import: it may run at a low CPU priority (a child importer does). */
    background?: boolean;
  }): Promise<unknown>;
  intermediaryProteins(
    rows: PathRow[],
    options: { topNDegs: number; deg: string | null; impactedDegOrder: string[] },
  ): Promise<{ proteins: string[]; n_paths_used: number }>;
  /**
   * Parses the stored causal_graph_inputs.json bytes, then renders, off the event loop; throws an
   * error named "InvalidGraphInputs" when the inputs are invalid.
   */
  renderCausalGraph(inputs: Uint8Array, options: { topNDegs: number; dpi: number }): Promise<Buffer>;
  /** The symbol table, orthologues and node ids of a stored model version, loaded once. */
  geneLookup(store: ObjectStore, version: string): Promise<GeneLookupPiece>;
  /** Releases resources (the validator's worker thread). */
  close(): Promise<void>;
}

/** A rejected upload as thrown by runner/src/anndata (matched by name and code). */
export function asUploadRejected(err: unknown): { code: string; message: string } | null {
  if (err instanceof Error && err.name === "UploadRejected") {
    const code = (err as { code?: unknown }).code;
    return { code: typeof code === "string" ? code : "invalid_h5ad", message: err.message };
  }
  return null;
}

export function isInvalidGraphInputs(err: unknown): boolean {
  return err instanceof Error && err.name === "InvalidGraphInputs";
}

// Only the validator's front: h5wasm (~30 MB resident with its wasm heap) loads in the
// validator's worker threads, never in the API's own isolate.
let upload: Promise<typeof UploadModule> | undefined;
const loadUploadValidator = () => (upload ??= import("@causeway/runner/anndata/upload"));

// A fresh worker per render: a 600-dpi image holds over 100 MB of native pixel memory that the
// worker's garbage collector does not count, so renders one after another in one worker piled
// it up until a collection; ending the worker hands it back at once. Starting one costs a small
// fraction of a large render, and repeated requests are answered from the render cache.
const graphRenderer = new WorkerCalls<GraphRenderRequest, GraphRenderResponse>(
  new URL("./services/causal/graph-render-worker.ts", import.meta.url),
  10_000,
  1,
);

/** The real pieces from runner/src, loaded on first use. */
export const runnerPieces: RunnerPieces = {
  async validateUpload(path, options) {
    return (await loadUploadValidator()).validateUpload(path, options);
  },
  prepareUploadValidator() {
    // A head start only: a module that fails to load fails the check itself, which reports it.
    void loadUploadValidator().then(
      (m) => m.prepareUploadValidator(),
      () => undefined,
    );
  },
  async importModel(options) {
    const m: typeof ModelModule = await import("@causeway/runner/model");
    const { importOptionsFor, scoringOf }: typeof ScoringModule = await import("@causeway/runner/scoring");
    const log = options.onProgress;
    // A version stores the evidence layers its scoring reads, and no others.
    const kinds = scoringOf(options.scoring).layerKinds;
    const librariesDir = kinds.length > 0 ? options.librariesDir : undefined;
    if (kinds.length > 0 && !librariesDir)
      log?.(`model ${options.version}: no gene-set libraries given, so it runs without its evidence layers`);
    const ppiFiles = kinds.includes("ppi") ? (options.ppiFiles ?? []) : [];
    const libraries: typeof LibrariesModule | null =
      librariesDir || ppiFiles.length > 0 ? await import("@causeway/runner/libraries") : null;
    const layers = [
      ...(libraries && librariesDir ? await libraries.layerFilesOfDir(librariesDir) : []),
      ...(libraries
        ? ppiFiles.map((path) => ({ path, kind: "ppi" as const, name: libraries.pairsLayerName(path) }))
        : []),
    ].filter((l) => kinds.includes(l.kind));
    const importOptions = importOptionsFor(options.scoring);
    const importNow = () =>
      m.importModel({
        ...(layers.length > 0 ? { layers } : {}),
        networkPath: options.networkPath,
        hgncDir: options.hgncDir,
        version: options.version,
        store: options.store,
        ...(options.reuseFrom ? { reuseFrom: options.reuseFrom } : {}),
        ...importOptions,
        ...(log
          ? {
              onProgress: (done: number, total: number) =>
                log(`model import: ${done}/${total} column blocks`),
            }
          : {}),
      });
    if (!options.cacheDir) return importNow();
    // The runner's key covers the network, the HGNC files and the walk; a version also stores its
    // evidence layers and the orthologue table, so they are part of its cache entry's key too.
    const { withBundleCache, extendedBundleKey } = await import("./services/models/model-bundle-cache.ts");
    const { ORTHOLOGUE_FILE } = await import("@causeway/runner/symbols");
    const bundleKey = await extendedBundleKey(
      await m.bundleCacheKey(options.networkPath, options.hgncDir, importOptions.walk),
      [...layers.map((l) => l.path), join(options.hgncDir, ORTHOLOGUE_FILE)],
    );
    return withBundleCache(
      {
        dir: options.cacheDir,
        bundleKey,
        version: options.version,
        scoring: options.scoring,
        store: options.store,
        manifestFile: m.MANIFEST_FILE,
        log,
      },
      importNow,
    );
  },
  async intermediaryProteins(rows, options) {
    const c: typeof CausalModule = await import("@causeway/runner/causal");
    return c.intermediaryProteins(rows, options);
  },
  async renderCausalGraph(inputs, options) {
    const res = await graphRenderer.call({ inputs, topNDegs: options.topNDegs, dpi: options.dpi });
    if (res.ok) return Buffer.from(res.png.buffer, res.png.byteOffset, res.png.byteLength);
    const invalid = "invalidInputs" in res && res.invalidInputs;
    throw Object.assign(new Error(res.message), invalid ? { name: "InvalidGraphInputs" } : {});
  },
  async geneLookup(store, version) {
    const m: typeof ModelModule = await import("@causeway/runner/model");
    return m.loadGeneLookup(store, version);
  },
  async close() {
    await graphRenderer.close();
    if (upload) await (await upload).closeUploadValidator();
  },
};
