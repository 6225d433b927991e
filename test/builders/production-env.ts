/**
 * The API's production-mode environment against the services the harness started: PostgreSQL (an
 * isolated database), Redis (unless a test keeps limits in memory) and the S3 server. Tests add
 * their own settings on top.
 */
import { inject } from "vitest";
import { Database } from "../../api/src/db/database.ts";
import { migrate } from "../../api/src/db/migrate.ts";
import { registerModel } from "../../api/src/db/models.ts";

export function productionEnv(options: {
  databaseUrl: string;
  callbackSecret: string;
  redis?: boolean;
}): Record<string, string> {
  const s3 = inject("s3");
  return {
    DATABASE_URL: options.databaseUrl,
    ...(options.redis === false ? {} : { REDIS_URL: inject("redisUrl") }),
    CAUSEWAY_STORAGE: "s3",
    S3_BUCKET: s3.bucket,
    S3_REGION: s3.region,
    S3_ENDPOINT: s3.endpoint,
    S3_FORCE_PATH_STYLE: "true",
    AWS_ACCESS_KEY_ID: s3.accessKeyId,
    AWS_SECRET_ACCESS_KEY: s3.secretAccessKey,
    CAUSEWAY_CALLBACK_SECRET: options.callbackSecret,
    CAUSEWAY_EDGE_LIMIT_ENABLED: "false",
    LOG_LEVEL: "silent",
  };
}

/** Migrates the isolated database and registers a default model version `v1` (its manifest a stub). */
export async function prepareProductionDatabase(databaseUrl: string): Promise<void> {
  const admin = new Database({ connectionString: databaseUrl });
  try {
    await migrate(admin);
    await registerModel(admin, "v1", { version: "v1" }, true);
  } finally {
    await admin.close();
  }
}
