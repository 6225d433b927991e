/**
 * A machine-wide cache of imported model versions, so a second data directory (a fresh clone,
 * a test, a reset) does not compute the same influence bundle again: the import of a network
 * is keyed by the SHA-256 of its inputs and every option that changes the bundle (the runner's
 * `bundleCacheKey`), plus the version name and scoring the manifest records. A hit copies the
 * cached objects into the store (manifest last, as an import writes them); the runner checks
 * every file against the manifest's checksum when it loads the model, so a damaged cache entry
 * fails loudly instead of serving a wrong model. Writing the cache never fails an import.
 */
import { createHash, randomUUID } from "node:crypto";
import { mkdir, readFile, rename, rm, stat } from "node:fs/promises";
import { basename, dirname, join } from "node:path";
import { z } from "zod";
import type { ObjectStore } from "@causeway/runner/storage";

/** The manifest fields the cache reads: which files a version consists of. */
const CachedManifest = z.object({ files: z.record(z.string(), z.object({ bytes: z.number() })) });

export interface BundleCacheEntry {
  /** The cache root. */
  dir: string;
  /** The runner's bundle key (inputs and walk parameters). */
  bundleKey: string;
  version: string;
  scoring: string;
  store: ObjectStore;
  /** The manifest's object name under `models/<version>/`. */
  manifestFile: string;
  log?: (message: string) => void;
}

/** Bumped when a version stores a new derived file, so older cache entries are rebuilt once. */
const STORED_LAYOUT = 2;

/**
 * The runner's bundle key extended with files a version stores beside its bundle (evidence layers,
 * the orthologue table): their bytes, or their absence, change the entry.
 */
export async function extendedBundleKey(bundleKey: string, files: readonly string[]): Promise<string> {
  // The layout of what a version stores beside its bundle: an entry cached before the resolved
  // evidence layers were stored would load correctly but parse its libraries on every runner start.
  const hash = createHash("sha256").update(bundleKey).update(`stored-layout:${STORED_LAYOUT}`);
  for (const path of files) {
    const bytes = await readFile(path).catch((err: NodeJS.ErrnoException) => {
      if (err.code === "ENOENT") return null;
      throw err;
    });
    hash.update(JSON.stringify({ file: basename(path), present: bytes !== null }));
    if (bytes) hash.update(bytes);
  }
  return hash.digest("hex");
}

/** The cache folder of one version of one bundle. */
export function entryDir(e: Pick<BundleCacheEntry, "dir" | "bundleKey" | "version" | "scoring">): string {
  const key = createHash("sha256")
    .update(JSON.stringify({ bundle: e.bundleKey, version: e.version, scoring: e.scoring }))
    .digest("hex");
  return join(e.dir, key);
}

const exists = (path: string): Promise<boolean> =>
  stat(path).then(
    () => true,
    () => false,
  );

/**
 * The manifest of the version: restored from the cache when it holds the entry and the store
 * does not, otherwise from `importNow()` (whose result is then saved to the cache).
 */
export async function withBundleCache(
  e: BundleCacheEntry,
  importNow: () => Promise<unknown>,
): Promise<unknown> {
  const dir = entryDir(e);
  const prefix = `models/${e.version}/`;
  const manifestPath = join(dir, e.manifestFile);
  if (!(await e.store.exists(prefix + e.manifestFile)) && (await exists(manifestPath))) {
    try {
      const raw = await readFile(manifestPath, "utf8");
      const manifest = CachedManifest.parse(JSON.parse(raw));
      for (const name of Object.keys(manifest.files)) await e.store.putFile(prefix + name, join(dir, name));
      await e.store.put(prefix + e.manifestFile, raw, "application/json");
      e.log?.(`model ${e.version}: reused the cached bundle ${dir}`);
      return JSON.parse(raw) as unknown;
    } catch (err) {
      // A damaged entry: import as if there were none (and replace it below).
      e.log?.(
        `model ${e.version}: cached bundle unusable (${err instanceof Error ? err.message : String(err)})`,
      );
      await e.store.deletePrefix(prefix);
      await rm(dir, { recursive: true, force: true });
    }
  }
  const manifest = await importNow();
  await save(e, dir, prefix, manifest).catch((err: unknown) =>
    e.log?.(
      `model ${e.version}: could not cache the bundle (${err instanceof Error ? err.message : String(err)})`,
    ),
  );
  return manifest;
}

/** Copies the stored version into a temporary folder, then renames it into place (atomic). */
async function save(e: BundleCacheEntry, dir: string, prefix: string, manifest: unknown): Promise<void> {
  if (await exists(join(dir, e.manifestFile))) return;
  const files = CachedManifest.parse(manifest).files;
  const tmp = `${dir}.tmp-${randomUUID()}`;
  try {
    for (const name of [...Object.keys(files), e.manifestFile]) {
      await mkdir(dirname(join(tmp, name)), { recursive: true });
      await e.store.getToFile(prefix + name, join(tmp, name));
    }
    await rm(dir, { recursive: true, force: true });
    await rename(tmp, dir);
  } finally {
    await rm(tmp, { recursive: true, force: true });
  }
}
