/**
 * The operator's configuration, read from the environment once at startup and validated
 * with zod (the chart sets these; see operator/README.md for the list).
 */
import { z } from "zod";
import type { V1EnvVar, V1ResourceRequirements, V1Toleration } from "@kubernetes/client-node";
import { storageEnvOf, type StorageSettings } from "@causeway/contract";
import type { ReconcileConfig } from "./reconcile/types.ts";

const int = (def: number, min = 0) => z.coerce.number().int().min(min).default(def);
const bool = (def: boolean) =>
  z
    .enum(["true", "false", "1", "0"])
    .default(def ? "true" : "false")
    .transform((v) => v === "true" || v === "1");
const json = <T extends z.ZodType>(schema: T, def: string) =>
  z
    .string()
    .default(def)
    .transform((s, ctx) => {
      try {
        return JSON.parse(s) as unknown;
      } catch {
        ctx.addIssue({ code: "custom", message: "not valid JSON" });
        return z.NEVER;
      }
    })
    .pipe(schema);

/** A DNS-1123 subdomain (the name of a Secret): lowercase alphanumerics, '-' and '.', at most 253. */
const DNS1123_SUBDOMAIN = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$/;
const SecretName = z
  .string()
  .max(253)
  .regex(DNS1123_SUBDOMAIN, "must be a DNS-1123 subdomain (a Secret name)");
/** A comma-separated list of Secret names (blanks around the commas and empty items ignored). */
const secretNames = () =>
  z
    .string()
    .default("")
    .transform((s) =>
      s
        .split(",")
        .map((name) => name.trim())
        .filter((name) => name !== ""),
    )
    .pipe(z.array(SecretName));

const Quantity = z.union([z.string(), z.number()]).transform(String);
const Resources = z.object({
  requests: z.record(z.string(), Quantity).optional(),
  limits: z.record(z.string(), Quantity).optional(),
});
const EnvVar = z.object({ name: z.string().min(1) }).loose();
const Toleration = z.object({
  key: z.string().optional(),
  operator: z.string().optional(),
  value: z.string().optional(),
  effect: z.string().optional(),
  tolerationSeconds: z.number().optional(),
});

export const OperatorEnv = z.object({
  POD_NAME: z.string().min(1).default(`causeway-operator-${process.pid}`),
  POD_NAMESPACE: z.string().min(1).default("default"),
  /** The namespace whose resources this operator reconciles (default: its own). */
  WATCH_NAMESPACE: z.string().optional(),
  LOG_LEVEL: z.enum(["fatal", "error", "warn", "info", "debug", "trace"]).default("info"),
  HTTP_PORT: int(8080, 1),

  RUNNER_IMAGE: z.string().min(1),
  RUNNER_IMAGE_PULL_POLICY: z.enum(["Always", "IfNotPresent", "Never"]).default("IfNotPresent"),
  RUNNER_SERVICE_ACCOUNT: z.string().optional(),
  RUNNER_BACKOFF_LIMIT: int(1),
  RUNNER_ACTIVE_DEADLINE_SECONDS: int(3600, 1),
  RUNNER_TTL_SECONDS_AFTER_FINISHED: int(3600),
  RUNNER_PENDING_TIMEOUT_SECONDS: int(600, 1),
  RUNNER_TERMINAL_GRACE_SECONDS: int(30),
  RUNNER_RESOURCES: json(Resources, '{"requests":{"cpu":"1","memory":"2Gi"},"limits":{"memory":"4Gi"}}'),
  RUNNER_RUN_AS_USER: int(1000, 1),
  RUNNER_TMP_SIZE_LIMIT: z.string().default("2Gi"),
  RUNNER_NODE_SELECTOR: json(z.record(z.string(), z.string()), "{}"),
  RUNNER_TOLERATIONS: json(z.array(Toleration), "[]"),
  /**
   * Secrets the runner pods pull their image with (comma-separated names, in the resources'
   * namespace); the chart sets it from `.Values.imagePullSecrets`. Default: none.
   */
  RUNNER_IMAGE_PULL_SECRETS: secretNames(),
  /** Extra env for the runner, as a JSON array of EnvVar (e.g. OTEL settings). */
  RUNNER_EXTRA_ENV: json(z.array(EnvVar), "[]"),

  /** Base URL of the API's callback route as runner pods reach it (the API's CAUSEWAY_CALLBACK_BASE_URL). */
  CAUSEWAY_CALLBACK_BASE_URL: z.url(),
  CAUSEWAY_CALLBACK_SECRET: z.string().min(32),

  CAUSEWAY_STORAGE: z.enum(["s3", "fs"]).default("s3"),
  CAUSEWAY_STORAGE_DIR: z.string().optional(),
  S3_BUCKET: z.string().optional(),
  S3_REGION: z.string().default("us-east-1"),
  S3_ENDPOINT: z.string().optional(),
  S3_FORCE_PATH_STYLE: z.enum(["true", "false"]).default("false"),
  /** Name of a Secret in the runner's namespace with the S3 credentials (never copied, only referenced). */
  S3_CREDENTIALS_SECRET: z.string().optional(),
  S3_ACCESS_KEY_ID_KEY: z.string().default("AWS_ACCESS_KEY_ID"),
  S3_SECRET_ACCESS_KEY_KEY: z.string().default("AWS_SECRET_ACCESS_KEY"),

  /**
   * Delete a Prediction or CausalAnalysis this many seconds after it finished (Complete or
   * Failed); unset or 0 keeps it forever. Keeping stays the default so that an upgrade never
   * starts deleting resources an existing install (or its scripts) still reads with kubectl:
   * deleting is opt-in here, and the chart opts in (`operator.resourceTtlSecondsAfterFinished`,
   * 7 days). PostgreSQL keeps the job's history either way; the resource is only the cluster's
   * mirror of it, and each finished one costs etcd space and the informer cache's heap.
   */
  RESOURCE_TTL_SECONDS_AFTER_FINISHED: int(0),

  /** auto: detect from the server version (podFailurePolicy >= 1.26, podReplacementPolicy >= 1.29). */
  POD_FAILURE_POLICY: z.enum(["auto", "true", "false"]).default("auto"),

  LEADER_ELECT: bool(true),
  LEASE_NAME: z.string().default("causeway-operator"),
  LEASE_DURATION_SECONDS: int(15, 1),
  RENEW_DEADLINE_SECONDS: int(10, 1),
  RETRY_PERIOD_SECONDS: int(2, 1),

  CONCURRENCY: int(4, 1),
  /** How long a Job or pod event waits for the rest of its burst before the pass runs. */
  EVENT_COALESCE_MS: int(1000),
  RESYNC_SECONDS: int(60, 1),
  RELIST_SECONDS: int(600, 5),
  WATCH_STALE_SECONDS: int(120, 5),
  /** /healthz fails when a key has waited in the queue longer than this. */
  QUEUE_STUCK_SECONDS: int(600, 5),
});
export type OperatorEnv = z.infer<typeof OperatorEnv>;

/** The operator's parsed settings. */
export interface OperatorConfig {
  env: OperatorEnv;
  namespace: string;
  reconcile: Omit<ReconcileConfig, "podFailurePolicy" | "podReplacementPolicy">;
}

/** The runner's storage env: plain settings plus secret references, never secret values. */
export function storageEnv(env: OperatorEnv): V1EnvVar[] {
  const settings: StorageSettings =
    env.CAUSEWAY_STORAGE === "fs"
      ? { kind: "fs", dir: env.CAUSEWAY_STORAGE_DIR ?? "/data" }
      : {
          kind: "s3",
          bucket: env.S3_BUCKET ?? "",
          region: env.S3_REGION,
          forcePathStyle: env.S3_FORCE_PATH_STYLE === "true",
          ...(env.S3_ENDPOINT ? { endpoint: env.S3_ENDPOINT } : {}),
        };
  // The keys go by reference to their Secret, never as values in the Job.
  const out: V1EnvVar[] = Object.entries(storageEnvOf(settings, { withCredentials: false })).map(
    ([name, value]) => ({ name, value }),
  );
  if (settings.kind === "s3" && env.S3_CREDENTIALS_SECRET) {
    const ref = (key: string) => ({ secretKeyRef: { name: env.S3_CREDENTIALS_SECRET ?? "", key } });
    out.push({ name: "AWS_ACCESS_KEY_ID", valueFrom: ref(env.S3_ACCESS_KEY_ID_KEY) });
    out.push({ name: "AWS_SECRET_ACCESS_KEY", valueFrom: ref(env.S3_SECRET_ACCESS_KEY_KEY) });
  }
  return out;
}

/** Parses the environment; throws a readable error listing every problem. */
export function loadConfig(source: NodeJS.ProcessEnv = process.env): OperatorConfig {
  const parsed = OperatorEnv.safeParse(source);
  if (!parsed.success) {
    throw new Error(
      `invalid operator configuration: ${parsed.error.issues.map((i) => `${i.path.join(".")}: ${i.message}`).join("; ")}`,
    );
  }
  const env = parsed.data;
  if (env.CAUSEWAY_STORAGE === "s3" && !env.S3_BUCKET)
    throw new Error("invalid operator configuration: S3_BUCKET is required for s3 storage");
  return {
    env,
    namespace: env.WATCH_NAMESPACE ?? env.POD_NAMESPACE,
    reconcile: {
      runnerImage: env.RUNNER_IMAGE,
      imagePullPolicy: env.RUNNER_IMAGE_PULL_POLICY,
      runnerServiceAccount: env.RUNNER_SERVICE_ACCOUNT,
      backoffLimit: env.RUNNER_BACKOFF_LIMIT,
      activeDeadlineSeconds: env.RUNNER_ACTIVE_DEADLINE_SECONDS,
      ttlSecondsAfterFinished: env.RUNNER_TTL_SECONDS_AFTER_FINISHED,
      pendingTimeoutSeconds: env.RUNNER_PENDING_TIMEOUT_SECONDS,
      terminalGraceSeconds: env.RUNNER_TERMINAL_GRACE_SECONDS,
      resyncSeconds: env.RESYNC_SECONDS,
      resources: env.RUNNER_RESOURCES as V1ResourceRequirements,
      callbackBaseUrl: env.CAUSEWAY_CALLBACK_BASE_URL,
      callbackServerSecret: env.CAUSEWAY_CALLBACK_SECRET,
      runnerEnv: [...storageEnv(env), ...(env.RUNNER_EXTRA_ENV as V1EnvVar[])],
      runAsUser: env.RUNNER_RUN_AS_USER,
      tmpSizeLimit: env.RUNNER_TMP_SIZE_LIMIT,
      nodeSelector: env.RUNNER_NODE_SELECTOR,
      tolerations: env.RUNNER_TOLERATIONS as V1Toleration[],
      imagePullSecrets: env.RUNNER_IMAGE_PULL_SECRETS,
      resourceTtlSecondsAfterFinished: env.RESOURCE_TTL_SECONDS_AFTER_FINISHED,
    },
  };
}

/** Whether the server supports the optional Job fields, from its minor version. */
export function jobFeatures(
  mode: OperatorEnv["POD_FAILURE_POLICY"],
  minor: number,
): { podFailurePolicy: boolean; podReplacementPolicy: boolean } {
  if (mode === "false") return { podFailurePolicy: false, podReplacementPolicy: false };
  if (mode === "true") return { podFailurePolicy: true, podReplacementPolicy: minor >= 29 };
  return { podFailurePolicy: minor >= 26, podReplacementPolicy: minor >= 29 };
}
