/**
 * Opens the object store a runner process was pointed at. The operator and the local
 * executor set these variables; the names match the API's configuration.
 */
import { z } from "zod";
import { FsObjectStore, openS3ObjectStore, type ObjectStore } from "../storage/index.ts";

const StorageEnv = z.discriminatedUnion("CAUSEWAY_STORAGE", [
  z.object({ CAUSEWAY_STORAGE: z.literal("fs"), CAUSEWAY_STORAGE_DIR: z.string().min(1) }),
  z.object({
    CAUSEWAY_STORAGE: z.literal("s3"),
    S3_BUCKET: z.string().min(3),
    S3_REGION: z.string().default("us-east-1"),
    S3_ENDPOINT: z.url().optional(),
    S3_FORCE_PATH_STYLE: z.enum(["true", "false"]).default("false"),
    AWS_ACCESS_KEY_ID: z.string().optional(),
    AWS_SECRET_ACCESS_KEY: z.string().optional(),
  }),
]);

export async function storeFromEnv(env: NodeJS.ProcessEnv): Promise<ObjectStore> {
  const parsed = StorageEnv.safeParse({ CAUSEWAY_STORAGE: "fs", ...env });
  if (!parsed.success) {
    const problems = parsed.error.issues.map((i) => `${i.path.join(".")}: ${i.message}`).join("; ");
    throw new Error(`invalid storage configuration: ${problems}`);
  }
  const cfg = parsed.data;
  if (cfg.CAUSEWAY_STORAGE === "fs") return new FsObjectStore(cfg.CAUSEWAY_STORAGE_DIR);
  return openS3ObjectStore({
    bucket: cfg.S3_BUCKET,
    region: cfg.S3_REGION,
    endpoint: cfg.S3_ENDPOINT,
    forcePathStyle: cfg.S3_FORCE_PATH_STYLE === "true",
    accessKeyId: cfg.AWS_ACCESS_KEY_ID,
    secretAccessKey: cfg.AWS_SECRET_ACCESS_KEY,
  });
}
