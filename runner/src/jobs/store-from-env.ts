/**
 * Opens the object store a runner process was pointed at: the storage settings the operator or
 * the local executor wrote into its environment (`@causeway/contract`'s storage-settings.ts).
 */
import { storageSettingsFromEnv } from "@causeway/contract";
import { FsObjectStore, openS3ObjectStore, type ObjectStore } from "../storage/index.ts";

export async function storeFromEnv(env: NodeJS.ProcessEnv): Promise<ObjectStore> {
  const s = storageSettingsFromEnv(env);
  if (s.kind === "fs") return new FsObjectStore(s.dir);
  return openS3ObjectStore({
    bucket: s.bucket,
    region: s.region,
    endpoint: s.endpoint,
    forcePathStyle: s.forcePathStyle,
    accessKeyId: s.accessKeyId,
    secretAccessKey: s.secretAccessKey,
  });
}
