/**
 * Models for the command line: built from a network file and an HGNC directory, cached on
 * disk under the SHA-256 of the inputs and parameters, so a bundle is computed once per input.
 */
import { createHash } from "node:crypto";
import { mkdir, open, readFile, rm, stat } from "node:fs/promises";
import { dirname, join } from "node:path";
import { runnerCacheDir } from "@causeway/contract";
import { FsObjectStore } from "../storage/index.ts";
import { HGNC_FILES } from "../symbols/index.ts";
import type { ProgressCallback } from "./influence.ts";
import { TOLERANCE } from "./influence-kernel.ts";
import { BUNDLE_FORMAT, DEFAULT_MAX_PATH_LENGTH } from "./manifest.ts";
import type { Model } from "./model.ts";
import { importModel } from "./model-import.ts";
import { loadModel } from "./model-load.ts";
import { V1_WALK, type WalkParams } from "./transition.ts";

/** Options of `buildModelFromFiles`. */
export interface BuildModelFromFilesOptions {
  networkPath: string;
  hgncDir: string;
  /** Default: $CAUSEWAY_CACHE_DIR, else ~/.cache/causeway. */
  cacheDir?: string;
  threads?: number;
  onProgress?: ProgressCallback;
  walk?: WalkParams;
}

/** The cache directory of command-line runs (the contract's runner cache). */
export function defaultCacheDir(): string {
  return runnerCacheDir();
}

/** Cache key: SHA-256 over the input bytes and every parameter that changes the bundle. */
export async function bundleCacheKey(
  networkPath: string,
  hgncDir: string,
  walk: WalkParams = V1_WALK,
): Promise<string> {
  const hash = createHash("sha256");
  hash.update(JSON.stringify({ BUNDLE_FORMAT, TOLERANCE, DEFAULT_MAX_PATH_LENGTH, walk }));
  hash.update(await readFile(networkPath));
  for (const name of Object.values(HGNC_FILES)) hash.update(await readFile(join(hgncDir, name)));
  return hash.digest("hex");
}

/** Builds (or reuses from the cache) the model of a network file; loads it once per process. */
export async function buildModelFromFiles(options: BuildModelFromFilesOptions): Promise<Model> {
  const walk = options.walk ?? V1_WALK;
  const key = await bundleCacheKey(options.networkPath, options.hgncDir, walk);
  const root = join(options.cacheDir ?? defaultCacheDir(), "bundles", key);
  const store = storeFor(root);
  const version = `local-${key.slice(0, 16)}`;
  await withBuildLock(root, () =>
    importModel({
      networkPath: options.networkPath,
      hgncDir: options.hgncDir,
      version,
      store,
      threads: options.threads,
      onProgress: options.onProgress,
      walk,
    }),
  );
  return loadModel(store, version);
}

const LOCK_STALE_MS = 15 * 60_000;

/**
 * Runs `fn` while holding `<root>.lock` (an exclusively created file), so parallel processes
 * (test files, command-line runs) compute a bundle once; the others wait and then find it.
 * A lock older than 15 minutes is taken to be left over from a killed process.
 */
async function withBuildLock<T>(root: string, fn: () => Promise<T>): Promise<T> {
  const lock = `${root}.lock`;
  await mkdir(dirname(lock), { recursive: true });
  for (;;) {
    try {
      const handle = await open(lock, "wx");
      await handle.close();
      break;
    } catch (err) {
      if (!(err instanceof Error && "code" in err && err.code === "EEXIST")) throw err;
      const age = await stat(lock).then(
        (s) => Date.now() - s.mtimeMs,
        () => 0,
      );
      if (age > LOCK_STALE_MS) await rm(lock, { force: true });
      else await new Promise((resolve) => setTimeout(resolve, 250));
    }
  }
  try {
    return await fn();
  } finally {
    await rm(lock, { force: true });
  }
}

// One store object per directory, so loadModel's per-store memo also spans calls.
const stores = new Map<string, FsObjectStore>();
function storeFor(root: string): FsObjectStore {
  let store = stores.get(root);
  if (!store) stores.set(root, (store = new FsObjectStore(root)));
  return store;
}
