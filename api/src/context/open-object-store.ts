/**
 * The object store of the context: the configured object store (a directory whose links the API
 * serves itself, or S3) and the matching storage variables for runner processes.
 */
import { FsObjectStore, openS3ObjectStore, type ObjectStore } from "@causeway/runner/storage";
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
  const s = config.storage;
  if (s.kind === "fs") return { CAUSEWAY_STORAGE: "fs", CAUSEWAY_STORAGE_DIR: s.dir };
  const env: Record<string, string> = {
    CAUSEWAY_STORAGE: "s3",
    S3_BUCKET: s.bucket,
    S3_REGION: s.region,
    S3_FORCE_PATH_STYLE: String(s.forcePathStyle),
  };
  if (s.endpoint) env.S3_ENDPOINT = s.endpoint;
  if (s.accessKeyId) env.AWS_ACCESS_KEY_ID = s.accessKeyId;
  if (s.secretAccessKey) env.AWS_SECRET_ACCESS_KEY = s.secretAccessKey;
  return env;
}
