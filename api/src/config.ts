/**
 * The API's configuration, read once from the environment and validated with zod. Every bad
 * value is reported on its own line, so a misconfigured deployment fails at start with all of
 * its problems at once. The mode follows from what is configured: no DATABASE_URL means
 * embedded PostgreSQL (PGlite), no REDIS_URL means in-process limit counters, and
 * CAUSEWAY_STORAGE=fs (the default) means objects under the data directory.
 */
import { resolve } from "node:path";
import { z } from "zod";
import {
  defaultModelBundleCacheDir,
  SCORING_VERSIONS,
  ScoringVersion,
  type FsStorageSettings,
  type S3StorageSettings,
} from "@causeway/contract";

const bool = z
  .enum(["true", "false", "1", "0", "yes", "no"])
  .transform((v) => v === "true" || v === "1" || v === "yes");
const int = (min: number, max: number) => z.coerce.number().int().min(min).max(max);
const csv = z.string().transform((v) =>
  v
    .split(",")
    .map((s) => s.trim())
    .filter((s) => s.length > 0),
);

/** Environment variables the API reads, with their defaults. */
export const ConfigEnv = z.object({
  PORT: int(0, 65535).default(8080),
  HOST: z.string().min(1).default("0.0.0.0"),
  /** Prometheus /metrics listener (never the API's port). */
  CAUSEWAY_METRICS_PORT: int(0, 65535).default(9464),
  CAUSEWAY_METRICS_HOST: z.string().min(1).optional(),
  LOG_LEVEL: z.enum(["fatal", "error", "warn", "info", "debug", "trace", "silent"]).default("info"),
  CAUSEWAY_DATA_DIR: z.string().min(1).default("./.causeway"),
  /** Base URL clients use to reach this API (download links of the filesystem store). */
  CAUSEWAY_PUBLIC_URL: z.url().optional(),
  /** Base URL runners use to reach the callback route (defaults to the public URL). */
  CAUSEWAY_CALLBACK_BASE_URL: z.url().optional(),
  /** Server secret the per-job callback keys derive from; generated in embedded mode. */
  CAUSEWAY_CALLBACK_SECRET: z.string().min(32).optional(),

  DATABASE_URL: z.string().min(1).optional(),
  DATABASE_POOL_MAX: int(1, 200).default(10),
  DATABASE_CONNECT_TIMEOUT_MS: int(100, 60_000).default(2000),
  /** Connections the embedded PGlite socket accepts (transactions serialize across them). */
  CAUSEWAY_PGLITE_MAX_CONNECTIONS: int(1, 64).default(8),
  REDIS_URL: z.string().min(1).optional(),

  CAUSEWAY_STORAGE: z.enum(["fs", "s3"]).default("fs"),
  CAUSEWAY_STORAGE_DIR: z.string().min(1).optional(),
  S3_BUCKET: z.string().min(3).optional(),
  S3_REGION: z.string().min(1).default("us-east-1"),
  S3_ENDPOINT: z.url().optional(),
  S3_PUBLIC_ENDPOINT: z.url().optional(),
  S3_FORCE_PATH_STYLE: bool.default(false),
  AWS_ACCESS_KEY_ID: z.string().min(1).optional(),
  AWS_SECRET_ACCESS_KEY: z.string().min(1).optional(),
  CAUSEWAY_PRESIGN_TTL_SECONDS: int(30, 7 * 24 * 3600).default(900),

  CAUSEWAY_DISPATCH: z.enum(["local", "kubernetes"]).default("local"),
  CAUSEWAY_EXECUTOR_CONCURRENCY: int(1, 64).default(2),
  CAUSEWAY_RUNNER_ENTRY: z.string().min(1).default("runner/src/main.ts"),
  /** Local executor: warm, long-lived runner threads (one per slot, in one runner host) instead of a process per job. */
  CAUSEWAY_RUNNER_POOL: bool.default(true),
  /** A warm runner is replaced after this many jobs. */
  CAUSEWAY_RUNNER_RECYCLE_JOBS: int(1, 100_000).default(50),
  /**
   * Warm runner threads, then their host, exit after this long without a job; the pool starts again
   * on the next one. Five minutes: someone working through datasets submits them minutes apart,
   * and a warm host runs each job several times faster than a cold one, for the memory the host
   * holds meanwhile (api/docs/memory.md has the figures).
   */
  CAUSEWAY_RUNNER_POOL_IDLE_SECONDS: int(1, 7 * 24 * 3600).default(300),
  /** A job with no callback for this long is failed with job_stalled. */
  CAUSEWAY_JOB_STALL_SECONDS: int(10, 7 * 24 * 3600).default(3600),
  CAUSEWAY_SWEEP_INTERVAL_SECONDS: int(1, 3600).default(30),

  CAUSEWAY_MODEL: z.string().min(1).optional(),
  CAUSEWAY_HGNC: z.string().min(1).optional(),
  /** Gene-set libraries (ChEA3/KEA3 layout) stored with v3 versions as evidence layers; never bundled. */
  CAUSEWAY_LIBRARIES: z.string().min(1).optional(),
  /**
   * Protein–protein interaction pair files (e.g. HuRI), comma-separated, stored with v4 versions
   * as evidence layers: v4 then ranks their proteins too. Never bundled.
   */
  CAUSEWAY_PPI: z
    .string()
    .min(1)
    .transform((v) =>
      v
        .split(",")
        .map((f) => f.trim())
        .filter((f) => f !== ""),
    )
    .optional(),
  /** The default version; unset, the first start makes the first imported version the default and later starts keep the admin's choice. */
  CAUSEWAY_MODEL_VERSION: z.string().min(1).max(128).optional(),
  /** Imported bundles are cached here by their inputs' hash and reused by other data directories; "off" disables. */
  CAUSEWAY_MODEL_CACHE_DIR: z.string().min(1).optional(),
  /**
   * Versions imported from CAUSEWAY_MODEL at start: `NAME[=SCORING]`, comma-separated (v1 to v4
   * name their own scoring). The first is the default of a fresh service: v4, the best on both
   * known-answer development sets under grouped cross-validation (runner/docs/model-v4.md).
   */
  CAUSEWAY_MODEL_VERSIONS: z
    .string()
    .default("v4,v3,v1,v2")
    .transform((s, ctx) => {
      const out: { version: string; scoring: ScoringVersion }[] = [];
      for (const item of s
        .split(",")
        .map((x) => x.trim())
        .filter(Boolean)) {
        const [version = "", scoring = version] = item.split("=");
        const parsed = ScoringVersion.safeParse(scoring);
        if (!parsed.success || version.length === 0 || version.length > 128) {
          ctx.addIssue({
            code: "custom",
            message: `${item}: expected NAME or NAME=${SCORING_VERSIONS.join("|")}`,
          });
          return z.NEVER;
        }
        out.push({ version, scoring: parsed.data });
      }
      return out;
    }),

  CAUSEWAY_RATE_LIMIT: int(1, 1_000_000).default(60),
  CAUSEWAY_RATE_WINDOW_SECONDS: int(1, 86_400).default(60),
  CAUSEWAY_INFLIGHT_LIMIT: int(1, 1000).default(1),
  CAUSEWAY_DEFAULT_QUOTA: int(0, 1_000_000_000).default(100),
  /** Causal analyses pending or processing at once per account. */
  CAUSEWAY_CAUSAL_INFLIGHT_LIMIT: int(1, 1000).default(2),
  /** POST /v1/causal-analysis per API key per window. */
  CAUSEWAY_CAUSAL_RATE_LIMIT: int(1, 1_000_000).default(30),
  CAUSEWAY_CAUSAL_RATE_WINDOW_SECONDS: int(1, 86_400).default(60),
  /** Open event streams (GET /v1/predictions/{id}/events) one API key may hold per process. */
  CAUSEWAY_MAX_EVENT_STREAMS_PER_KEY: int(1, 10_000).default(10),
  /** Runner callbacks per client address per minute (the callback route's rate limit). */
  CAUSEWAY_CALLBACK_RATE_LIMIT: int(1, 1_000_000).default(3000),
  CAUSEWAY_EDGE_LIMIT_ENABLED: bool.default(true),
  CAUSEWAY_EDGE_LIMIT: int(1, 1_000_000).default(30),
  CAUSEWAY_EDGE_WINDOW_SECONDS: int(1, 86_400).default(60),
  /** Proxy addresses whose X-Forwarded-For is trusted (comma-separated IPs/CIDRs); none by default. */
  CAUSEWAY_TRUSTED_PROXIES: csv.default([]),
  /**
   * Large reads (on-demand causal graphs; status previews too large to build inline), each kind
   * apart: running at once in the process, running per account, and waiting per account (more are
   * a 429 with Retry-After). A 600-dpi graph holds over 100 MB of pixels while it is drawn.
   */
  CAUSEWAY_HEAVY_READS_TOTAL: int(1, 64).default(2),
  CAUSEWAY_HEAVY_READS_PER_ACCOUNT: int(1, 64).default(1),
  CAUSEWAY_HEAVY_READS_QUEUED_PER_ACCOUNT: int(0, 1000).default(2),
  /** Bytes of rendered large reads kept per kind, keyed by request. */
  CAUSEWAY_HEAVY_READS_CACHE_BYTES: int(0, 4 * 1024 ** 3).default(64 * 1024 ** 2),

  /** Per-file upload cap in bytes (default 2 GiB). */
  CAUSEWAY_MAX_UPLOAD_BYTES: int(1024, 64 * 1024 ** 3).default(2 * 1024 ** 3),
  /** Cap of one non-file form field, e.g. the degs JSON (default 2 MiB). */
  CAUSEWAY_MAX_FIELD_BYTES: int(1024, 64 * 1024 ** 2).default(2 * 1024 ** 2),
  /** Cap of all text parts of one form together (default 4 MiB): text is held in memory, files are not. */
  CAUSEWAY_MAX_TEXT_BYTES: int(1024, 256 * 1024 ** 2).default(4 * 1024 ** 2),
  CAUSEWAY_REQUEST_TIMEOUT_SECONDS: int(1, 3600).default(600),

  /** Completion webhooks may target loopback, private, link-local and similar addresses. */
  CAUSEWAY_WEBHOOK_ALLOW_PRIVATE: bool.default(false),
  /** Host names or addresses/CIDRs webhooks may target even when they are private. */
  CAUSEWAY_WEBHOOK_ALLOW_HOSTS: csv.default([]),
  CAUSEWAY_WEBHOOK_POLL_MS: int(20, 60_000).default(1000),
  /** First retry delay; doubles per attempt (capped at one hour). */
  CAUSEWAY_WEBHOOK_BACKOFF_MS: int(10, 3_600_000).default(10_000),
  CAUSEWAY_WEBHOOK_MAX_ATTEMPTS: int(1, 100).default(12),
});

/**
 * Rules across variables, checked on the raw environment so they are reported together with
 * the per-variable problems (zod skips refinements of an object that already failed).
 */
function crossProblems(env: Record<string, string | undefined>, options: LoadConfigOptions): string[] {
  const out: string[] = [];
  if (env.CAUSEWAY_STORAGE === "s3" && !env.S3_BUCKET)
    out.push("S3_BUCKET: required when CAUSEWAY_STORAGE=s3");
  if (env.DATABASE_URL && !env.CAUSEWAY_CALLBACK_SECRET && options.forCallbacks !== false) {
    out.push("CAUSEWAY_CALLBACK_SECRET: required (at least 32 characters) when DATABASE_URL is set");
  }
  if ((env.CAUSEWAY_MODEL === undefined) !== (env.CAUSEWAY_HGNC === undefined)) {
    out.push("CAUSEWAY_HGNC: CAUSEWAY_MODEL and CAUSEWAY_HGNC go together");
  }
  return out;
}

/** The validated configuration the app and its services are built from. */
/** The model versions imported from one network at start (`ensureConfiguredModels`). */
export interface ConfiguredModels {
  networkPath: string | undefined;
  hgncDir: string | undefined;
  /** CAUSEWAY_LIBRARIES: gene-set libraries stored with v3 and v4 versions as evidence layers. */
  librariesDir?: string | undefined;
  /** CAUSEWAY_PPI: protein–protein interaction pair files stored with v4 versions as evidence layers. */
  ppiFiles?: readonly string[] | undefined;
  /** Set: this version is made the default at every start. Unset: the admin's choice stands. */
  defaultVersion: string | undefined;
  /** The machine-wide bundle cache (services/models/model-bundle-cache.ts); undefined when off. */
  cacheDir: string | undefined;
  versions: { version: string; scoring: ScoringVersion }[];
}

export interface Config {
  port: number;
  host: string;
  /** The metrics listener (observability/metrics-server.ts). */
  metrics: { port: number; host: string };
  logLevel: z.infer<typeof ConfigEnv>["LOG_LEVEL"];
  dataDir: string;
  publicUrl: string;
  callbackBaseUrl: string;
  /** Undefined in embedded mode until the data directory provides one (see embedded.ts). */
  callbackSecret: string | undefined;
  webhooks: {
    allowPrivate: boolean;
    allowHosts: string[];
    pollMs: number;
    backoffMs: number;
    maxAttempts: number;
  };
  database:
    | { kind: "embedded"; maxConnections: number }
    | { kind: "postgres"; url: string; poolMax: number; connectTimeoutMs: number };
  redisUrl: string | undefined;
  /** The contract's storage settings, plus where browsers reach S3 (presigned links) when it differs. */
  storage: FsStorageSettings | (S3StorageSettings & { publicEndpoint: string | undefined });
  presignTtlSeconds: number;
  dispatch: {
    kind: "local" | "kubernetes";
    concurrency: number;
    runnerEntry: string;
    pool: { enabled: boolean; recycleJobs: number; idleSeconds: number };
  };
  jobStallSeconds: number;
  sweepIntervalSeconds: number;
  model: ConfiguredModels;
  limits: {
    rateLimit: number;
    rateWindowSeconds: number;
    inflightLimit: number;
    defaultQuota: number;
    causalInflightLimit: number;
    causalRateLimit: number;
    causalRateWindowSeconds: number;
    maxEventStreamsPerKey: number;
    callbackRateLimit: number;
    edgeEnabled: boolean;
    edgeLimit: number;
    edgeWindowSeconds: number;
    trustedProxies: string[];
    heavyReads: { total: number; perAccount: number; queuedPerAccount: number; cacheBytes: number };
  };
  uploads: { maxFileBytes: number; maxFieldBytes: number; maxTextBytes: number };
  requestTimeoutSeconds: number;
}

/** Thrown with one line per bad variable. */
export class ConfigError extends Error {
  constructor(lines: string[]) {
    super(`invalid configuration:\n${lines.map((l) => `  ${l}`).join("\n")}`);
    this.name = "ConfigError";
  }
}

/** Reads and validates the configuration; throws ConfigError listing every bad value. */
/** Options of {@link loadConfig}. */
export interface LoadConfigOptions {
  /**
   * false for commands that never sign or verify runner callbacks (`migrate`): the callback secret is
   * then not required, so the chart's pre-install migration hook runs before the chart's Secret exists.
   */
  forCallbacks?: boolean;
}

export function loadConfig(env: NodeJS.ProcessEnv = process.env, options: LoadConfigOptions = {}): Config {
  // Empty strings count as unset, the way shells and Helm templates tend to produce them.
  const cleaned = Object.fromEntries(Object.entries(env).filter(([, v]) => v !== undefined && v !== ""));
  const parsed = ConfigEnv.safeParse(cleaned);
  const cross = crossProblems(cleaned, options);
  if (!parsed.success || cross.length > 0) {
    throw new ConfigError([
      ...(parsed.error?.issues ?? []).map((i) => {
        const name = i.path.join(".") || "(environment)";
        const value = cleaned[String(i.path[0])];
        // Never echo secrets back.
        const shown =
          value === undefined || /SECRET|KEY|PASSWORD|URL/.test(name)
            ? ""
            : ` (got ${JSON.stringify(value)})`;
        return `${name}: ${i.message}${shown}`;
      }),
      ...cross,
    ]);
  }
  const e = parsed.data;
  const dataDir = resolve(e.CAUSEWAY_DATA_DIR);
  const publicUrl = (e.CAUSEWAY_PUBLIC_URL ?? `http://127.0.0.1:${e.PORT}`).replace(/\/+$/, "");
  return {
    port: e.PORT,
    host: e.HOST,
    // Embedded: loopback only (the public port may face a network); in a cluster the pod's address.
    metrics: {
      port: e.CAUSEWAY_METRICS_PORT,
      host: e.CAUSEWAY_METRICS_HOST ?? (e.DATABASE_URL ? e.HOST : "127.0.0.1"),
    },
    logLevel: e.LOG_LEVEL,
    dataDir,
    publicUrl,
    callbackBaseUrl: (e.CAUSEWAY_CALLBACK_BASE_URL ?? publicUrl).replace(/\/+$/, ""),
    callbackSecret: e.CAUSEWAY_CALLBACK_SECRET,
    webhooks: {
      allowPrivate: e.CAUSEWAY_WEBHOOK_ALLOW_PRIVATE,
      allowHosts: e.CAUSEWAY_WEBHOOK_ALLOW_HOSTS,
      pollMs: e.CAUSEWAY_WEBHOOK_POLL_MS,
      backoffMs: e.CAUSEWAY_WEBHOOK_BACKOFF_MS,
      maxAttempts: e.CAUSEWAY_WEBHOOK_MAX_ATTEMPTS,
    },
    database: e.DATABASE_URL
      ? {
          kind: "postgres",
          url: e.DATABASE_URL,
          poolMax: e.DATABASE_POOL_MAX,
          connectTimeoutMs: e.DATABASE_CONNECT_TIMEOUT_MS,
        }
      : { kind: "embedded", maxConnections: e.CAUSEWAY_PGLITE_MAX_CONNECTIONS },
    redisUrl: e.REDIS_URL,
    storage:
      e.CAUSEWAY_STORAGE === "s3"
        ? {
            kind: "s3",
            bucket: e.S3_BUCKET ?? "",
            region: e.S3_REGION,
            endpoint: e.S3_ENDPOINT,
            publicEndpoint: e.S3_PUBLIC_ENDPOINT,
            forcePathStyle: e.S3_FORCE_PATH_STYLE,
            accessKeyId: e.AWS_ACCESS_KEY_ID,
            secretAccessKey: e.AWS_SECRET_ACCESS_KEY,
          }
        : { kind: "fs", dir: resolve(e.CAUSEWAY_STORAGE_DIR ?? resolve(dataDir, "objects")) },
    presignTtlSeconds: e.CAUSEWAY_PRESIGN_TTL_SECONDS,
    dispatch: {
      kind: e.CAUSEWAY_DISPATCH,
      concurrency: e.CAUSEWAY_EXECUTOR_CONCURRENCY,
      runnerEntry: resolve(e.CAUSEWAY_RUNNER_ENTRY),
      pool: {
        enabled: e.CAUSEWAY_RUNNER_POOL,
        recycleJobs: e.CAUSEWAY_RUNNER_RECYCLE_JOBS,
        idleSeconds: e.CAUSEWAY_RUNNER_POOL_IDLE_SECONDS,
      },
    },
    jobStallSeconds: e.CAUSEWAY_JOB_STALL_SECONDS,
    sweepIntervalSeconds: e.CAUSEWAY_SWEEP_INTERVAL_SECONDS,
    model: {
      networkPath: e.CAUSEWAY_MODEL ? resolve(e.CAUSEWAY_MODEL) : undefined,
      hgncDir: e.CAUSEWAY_HGNC ? resolve(e.CAUSEWAY_HGNC) : undefined,
      librariesDir: e.CAUSEWAY_LIBRARIES ? resolve(e.CAUSEWAY_LIBRARIES) : undefined,
      ppiFiles: e.CAUSEWAY_PPI?.map((f) => resolve(f)),
      defaultVersion: e.CAUSEWAY_MODEL_VERSION,
      versions: e.CAUSEWAY_MODEL_VERSIONS,
      cacheDir:
        e.CAUSEWAY_MODEL_CACHE_DIR === "off"
          ? undefined
          : resolve(e.CAUSEWAY_MODEL_CACHE_DIR ?? defaultModelBundleCacheDir()),
    },
    limits: {
      rateLimit: e.CAUSEWAY_RATE_LIMIT,
      rateWindowSeconds: e.CAUSEWAY_RATE_WINDOW_SECONDS,
      inflightLimit: e.CAUSEWAY_INFLIGHT_LIMIT,
      defaultQuota: e.CAUSEWAY_DEFAULT_QUOTA,
      causalInflightLimit: e.CAUSEWAY_CAUSAL_INFLIGHT_LIMIT,
      causalRateLimit: e.CAUSEWAY_CAUSAL_RATE_LIMIT,
      causalRateWindowSeconds: e.CAUSEWAY_CAUSAL_RATE_WINDOW_SECONDS,
      maxEventStreamsPerKey: e.CAUSEWAY_MAX_EVENT_STREAMS_PER_KEY,
      callbackRateLimit: e.CAUSEWAY_CALLBACK_RATE_LIMIT,
      edgeEnabled: e.CAUSEWAY_EDGE_LIMIT_ENABLED,
      edgeLimit: e.CAUSEWAY_EDGE_LIMIT,
      edgeWindowSeconds: e.CAUSEWAY_EDGE_WINDOW_SECONDS,
      trustedProxies: e.CAUSEWAY_TRUSTED_PROXIES,
      heavyReads: {
        total: e.CAUSEWAY_HEAVY_READS_TOTAL,
        perAccount: e.CAUSEWAY_HEAVY_READS_PER_ACCOUNT,
        queuedPerAccount: e.CAUSEWAY_HEAVY_READS_QUEUED_PER_ACCOUNT,
        cacheBytes: e.CAUSEWAY_HEAVY_READS_CACHE_BYTES,
      },
    },
    uploads: {
      maxFileBytes: e.CAUSEWAY_MAX_UPLOAD_BYTES,
      maxFieldBytes: e.CAUSEWAY_MAX_FIELD_BYTES,
      maxTextBytes: e.CAUSEWAY_MAX_TEXT_BYTES,
    },
    requestTimeoutSeconds: e.CAUSEWAY_REQUEST_TIMEOUT_SECONDS,
  };
}
