/**
 * The API's production-mode environment against the services the harness started: PostgreSQL (an
 * isolated database), Redis (unless a test keeps limits in memory) and the S3 server. Tests add
 * their own settings on top.
 */
import { inject } from "vitest";

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
