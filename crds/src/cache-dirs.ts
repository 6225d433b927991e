/**
 * The machine-wide cache folders and the variables that move them, in one place. Every cache is
 * content-addressed or checksummed, so a stale or foreign entry is rebuilt, never trusted.
 */
import { homedir } from "node:os";
import { join } from "node:path";

export const CACHE_ENV = {
  /** The runner's cache: command-line model bundles, a job's model files, prepared Kang cases. */
  runner: "CAUSEWAY_CACHE_DIR",
  /** The API's store of imported model bundles, shared by data directories ("off" disables it). */
  modelBundles: "CAUSEWAY_MODEL_CACHE_DIR",
} as const;

/** The runner's cache folder: $CAUSEWAY_CACHE_DIR, else ~/.cache/causeway. */
export function runnerCacheDir(env: Readonly<Record<string, string | undefined>> = process.env): string {
  return env[CACHE_ENV.runner] || join(homedir(), ".cache", "causeway");
}

/** The default of the API's model-bundle cache (CAUSEWAY_MODEL_CACHE_DIR overrides it). */
export function defaultModelBundleCacheDir(): string {
  return join(homedir(), ".cache", "causeway-models");
}
