/**
 * Where objects live, as every component names it: the settings of the object store (the local
 * filesystem or an S3 bucket) and the environment variables that carry them to a runner. The API
 * and the operator write these variables for the runners they start; a runner reads them back
 * (`storageSettingsFromEnv`), so the names and their parsing exist once.
 */
import { z } from "zod";

export const FsStorageSettings = z.object({ kind: z.literal("fs"), dir: z.string().min(1) });

export const S3StorageSettings = z.object({
  kind: z.literal("s3"),
  bucket: z.string().min(3),
  region: z.string().min(1).default("us-east-1"),
  endpoint: z.url().optional(),
  forcePathStyle: z.boolean().default(false),
  accessKeyId: z.string().min(1).optional(),
  secretAccessKey: z.string().min(1).optional(),
});

export type FsStorageSettings = z.infer<typeof FsStorageSettings>;
export type S3StorageSettings = z.infer<typeof S3StorageSettings>;

export const StorageSettings = z.discriminatedUnion("kind", [FsStorageSettings, S3StorageSettings]);
export type StorageSettings = z.infer<typeof StorageSettings>;

/** The environment variables of each setting (the API's configuration uses the same names). */
export const STORAGE_ENV = {
  kind: "CAUSEWAY_STORAGE",
  dir: "CAUSEWAY_STORAGE_DIR",
  bucket: "S3_BUCKET",
  region: "S3_REGION",
  endpoint: "S3_ENDPOINT",
  forcePathStyle: "S3_FORCE_PATH_STYLE",
  accessKeyId: "AWS_ACCESS_KEY_ID",
  secretAccessKey: "AWS_SECRET_ACCESS_KEY",
} as const;

/**
 * The settings a runner was given, read from its environment (`fs` when CAUSEWAY_STORAGE is
 * unset). Throws one readable error naming every bad variable.
 */
export function storageSettingsFromEnv(env: Readonly<Record<string, string | undefined>>): StorageSettings {
  const kind = env[STORAGE_ENV.kind] ?? "fs";
  const forcePathStyle = env[STORAGE_ENV.forcePathStyle];
  const raw =
    kind === "s3"
      ? {
          kind,
          bucket: env[STORAGE_ENV.bucket],
          region: env[STORAGE_ENV.region],
          endpoint: env[STORAGE_ENV.endpoint],
          forcePathStyle: forcePathStyle === undefined ? undefined : forcePathStyle === "true",
          accessKeyId: env[STORAGE_ENV.accessKeyId],
          secretAccessKey: env[STORAGE_ENV.secretAccessKey],
        }
      : { kind, dir: env[STORAGE_ENV.dir] };
  const parsed = StorageSettings.safeParse(raw);
  if (!parsed.success) {
    const name = (key: PropertyKey | undefined) =>
      typeof key === "string" && key in STORAGE_ENV
        ? STORAGE_ENV[key as keyof typeof STORAGE_ENV]
        : String(key);
    const problems = parsed.error.issues.map((i) => `${name(i.path[0])}: ${i.message}`).join("; ");
    throw new Error(`invalid storage configuration: ${problems}`);
  }
  return parsed.data;
}

/**
 * The variables that give a runner these settings. `withCredentials: false` leaves the S3 keys
 * out, for a caller that passes them by reference instead (the operator's Secret).
 */
export function storageEnvOf(
  s: StorageSettings,
  o: { withCredentials?: boolean } = {},
): Record<string, string> {
  if (s.kind === "fs") return { [STORAGE_ENV.kind]: "fs", [STORAGE_ENV.dir]: s.dir };
  const env: Record<string, string> = {
    [STORAGE_ENV.kind]: "s3",
    [STORAGE_ENV.bucket]: s.bucket,
    [STORAGE_ENV.region]: s.region,
    [STORAGE_ENV.forcePathStyle]: String(s.forcePathStyle),
  };
  if (s.endpoint) env[STORAGE_ENV.endpoint] = s.endpoint;
  if (o.withCredentials !== false) {
    if (s.accessKeyId) env[STORAGE_ENV.accessKeyId] = s.accessKeyId;
    if (s.secretAccessKey) env[STORAGE_ENV.secretAccessKey] = s.secretAccessKey;
  }
  return env;
}
