/**
 * The object store of the context: the configured object store (a directory whose links the API
 * serves itself, or S3) and the matching storage variables for runner processes.
 */
import { FsObjectStore, openS3ObjectStore, type ObjectStore } from "@causeway/runner/storage";
import { storageEnvOf } from "@causeway/contract";
import type { Config } from "../config.ts";
import type { DownloadTokens } from "../storage/download-tokens.ts";

export async function openObjectStore(config: Config, tokens: DownloadTokens): Promise<ObjectStore> {
  const s = config.storage;
  if (s.kind === "fs") return new FsObjectStore(s.dir, tokens.signer(config.publicUrl));
  return openS3ObjectStore({
    bucket: s.bucket,
    region: s.region,
    endpoint: s.endpoint,
    publicEndpoint: s.publicEndpoint,
    forcePathStyle: s.forcePathStyle,
    accessKeyId: s.accessKeyId,
    secretAccessKey: s.secretAccessKey,
  });
}

/** Storage variables a runner process needs to open the same store (runner/src/jobs/store-from-env.ts). */
export function runnerStorageEnv(config: Config): Record<string, string> {
  return storageEnvOf(config.storage);
}
