/**
 * Generates the chart's values.schema.json from values.yaml: the types come from the defaults,
 * the descriptions from the `## @param <path> <text>` comments (bitnami's readme-generator
 * convention). A value without an @param, or an @param without a value, is an error, so
 * every value stays documented.
 */
import { parse } from "yaml";

type Json = null | boolean | number | string | Json[] | { [k: string]: Json };

/** Enumerations the defaults cannot reveal. */
const ENUMS: Record<string, string[]> = {
  "image.pullPolicy": ["Always", "IfNotPresent", "Never"],
  "api.service.type": ["ClusterIP", "NodePort", "LoadBalancer"],
  "operator.logLevel": ["fatal", "error", "warn", "info", "debug", "trace"],
};

/** Lower bounds of counts and durations (each is what the component itself refuses below). */
const MINIMUM: Record<string, number> = {
  "api.replicaCount": 1,
  "api.terminationGracePeriodSeconds": 0,
  "api.ingress.edgeRateLimit.requestsPerMinute": 1,
  "api.pdb.minAvailable": 0,
  "operator.replicaCount": 1,
  "operator.concurrency": 1,
  "operator.eventCoalesceMs": 0,
  "operator.mallocArenaMax": 0,
  "operator.resyncSeconds": 1,
  "operator.relistSeconds": 5,
  "operator.watchStaleSeconds": 5,
  "operator.leaderElection.leaseDurationSeconds": 1,
  "operator.leaderElection.renewDeadlineSeconds": 1,
  "operator.leaderElection.retryPeriodSeconds": 1,
  "operator.resourceTtlSecondsAfterFinished": 0,
  "runner.activeDeadlineSeconds": 1,
  "runner.pendingTimeoutSeconds": 1,
  "runner.backoffLimit": 0,
  "runner.ttlSecondsAfterFinished": 0,
  "migrations.backoffLimit": 0,
  "migrations.activeDeadlineSeconds": 1,
};

/**
 * A Kubernetes quantity (resource.Quantity's grammar, without a sign: requests, limits and sizes
 * are never negative): `250m`, `1`, `0.5`, `512Mi`, `4Gi`, `1e9`. `4GB` or `1 Gi` render, then
 * the apiserver (or the operator, for runner Jobs) refuses them.
 */
export const QUANTITY_PATTERN =
  "^([0-9]+(\\.[0-9]*)?|\\.[0-9]+)([KMGTPE]i|[numkMGTPE]|[eE][+-]?([0-9]+(\\.[0-9]*)?|\\.[0-9]+))?$";
const QUANTITY: Record<string, Json> = { type: ["string", "number"], pattern: QUANTITY_PATTERN, minimum: 0 };

/** Container resources: requests and limits, each a map of resource name → quantity. */
const RESOURCES: Record<string, Json> = {
  type: "object",
  additionalProperties: false,
  properties: {
    requests: { type: "object", additionalProperties: QUANTITY },
    limits: { type: "object", additionalProperties: QUANTITY },
  },
};

/** A Prometheus Operator duration (its CRDs' pattern), not empty: `30s`, `1m`, `1m30s`. */
export const DURATION_PATTERN =
  "^(0|(([0-9]+)y)?(([0-9]+)w)?(([0-9]+)d)?(([0-9]+)h)?(([0-9]+)m)?(([0-9]+)s)?(([0-9]+)ms)?)$";

const PORT: Record<string, Json> = { minimum: 1, maximum: 65535 };

/** What helm prints when a selector holds anything but matchLabels / matchExpressions. */
export const LABEL_SELECTOR_MESSAGE =
  "a LabelSelector takes matchLabels and matchExpressions only: put a flat label map under matchLabels";

/**
 * A metav1.LabelSelector. JSON Schema has no custom error messages, so any other key must equal
 * an explanation it can never equal (a const longer than maxLength allows): helm then prints
 * "value must be '<LABEL_SELECTOR_MESSAGE>'" at the offending key, where `additionalProperties:
 * false` would only say that the key is not allowed.
 */
const LABEL_SELECTOR: Record<string, Json> = {
  type: "object",
  properties: {
    matchLabels: { type: "object", additionalProperties: { type: "string" } },
    matchExpressions: {
      type: "array",
      items: {
        type: "object",
        additionalProperties: false,
        required: ["key", "operator"],
        properties: {
          key: { type: "string", minLength: 1 },
          operator: { enum: ["In", "NotIn", "Exists", "DoesNotExist"] },
          values: { type: "array", items: { type: "string" } },
        },
      },
    },
  },
  additionalProperties: { const: LABEL_SELECTOR_MESSAGE, maxLength: 0 },
};

/** An OCI digest (`sha256:<hex>`), or empty for none. */
const DIGEST: Record<string, Json> = { pattern: "^([a-z0-9]+([+._-][a-z0-9]+)*:[a-zA-Z0-9=_-]{32,})?$" };
const NOT_EMPTY: Record<string, Json> = { minLength: 1 };

/** Further keywords of a value (they replace what the default would give, `type` included). */
const CONSTRAINTS: Record<string, Record<string, Json>> = {
  imagePullSecrets: {
    items: {
      type: "object",
      additionalProperties: false,
      required: ["name"],
      properties: { name: { type: "string", minLength: 1 } },
    },
  },
  "api.image.repository": NOT_EMPTY,
  "api.image.digest": DIGEST,
  "operator.image.repository": NOT_EMPTY,
  "operator.image.digest": DIGEST,
  "runner.image.repository": NOT_EMPTY,
  "runner.image.digest": DIGEST,
  "api.containerPort": PORT,
  "api.metricsPort": PORT,
  "api.service.port": PORT,
  "operator.containerPort": PORT,
  "api.resources": RESOURCES,
  "operator.resources": RESOURCES,
  "runner.resources": RESOURCES,
  "migrations.resources": RESOURCES,
  "api.tmpSizeLimit": QUANTITY,
  "runner.tmpSizeLimit": QUANTITY,
  // `--set x=true` gives a boolean: both spellings are accepted.
  "api.pdb.create": { type: ["string", "boolean"], enum: ["auto", true, false] },
  "operator.podFailurePolicy": { type: ["string", "boolean"], enum: ["auto", "true", "false", true, false] },
  // The API refuses to start with a bucket name shorter than 3 (S3_BUCKET); the chart always uses S3.
  "s3.bucket": { minLength: 3 },
  // A Secret data key.
  "callbacks.secretKey": { minLength: 1, pattern: "^[-._a-zA-Z0-9]+$" },
  "metrics.serviceMonitor.interval": { minLength: 1, pattern: DURATION_PATTERN },
  "networkPolicy.ingressNamespaceSelector": LABEL_SELECTOR,
};

/** `## @param` docs of a values.yaml: path → description. */
export function paramDocs(valuesYaml: string): Map<string, string> {
  const docs = new Map<string, string>();
  for (const m of valuesYaml.matchAll(/^\s*## @param (\S+) (.+)$/gm))
    docs.set(m[1] ?? "", (m[2] ?? "").trim());
  return docs;
}

function typeOf(value: Json): Record<string, Json> {
  if (value === null) return {};
  if (Array.isArray(value)) return { type: "array" };
  if (typeof value === "number") return { type: Number.isInteger(value) ? "integer" : "number" };
  if (typeof value === "object") return { type: "object" };
  return { type: typeof value };
}

/** The JSON Schema of a values.yaml text; throws when a value or a doc is missing. */
export function valuesSchema(valuesYaml: string): Record<string, Json> {
  const docs = paramDocs(valuesYaml);
  const used = new Set<string>();
  const missing: string[] = [];

  const walk = (value: Json, path: string): Record<string, Json> => {
    const doc = docs.get(path);
    if (doc !== undefined) {
      used.add(path);
      const schema: Record<string, Json> = { ...typeOf(value), description: doc, default: value };
      if (ENUMS[path]) schema.enum = ENUMS[path];
      if (MINIMUM[path] !== undefined) schema.minimum = MINIMUM[path];
      return { ...schema, ...CONSTRAINTS[path] };
    }
    if (value !== null && typeof value === "object" && !Array.isArray(value)) {
      const properties: Record<string, Json> = {};
      for (const [k, v] of Object.entries(value)) properties[k] = walk(v, path ? `${path}.${k}` : k);
      return { type: "object", additionalProperties: false, properties };
    }
    missing.push(path);
    return typeOf(value);
  };

  const values = parse(valuesYaml) as Json;
  const schema = walk(values, "");
  const unused = [...docs.keys()].filter((k) => !used.has(k));
  // A constraint on a path that is no documented value would silently constrain nothing.
  const stale = [...Object.keys(ENUMS), ...Object.keys(MINIMUM), ...Object.keys(CONSTRAINTS)].filter(
    (k) => !used.has(k),
  );
  if (missing.length > 0 || unused.length > 0 || stale.length > 0) {
    throw new Error(
      `values.yaml docs out of sync: undocumented [${missing.join(", ")}], unknown @param [${unused.join(", ")}], constraints of no value [${stale.join(", ")}]`,
    );
  }
  return { $schema: "http://json-schema.org/draft-07/schema#", title: "causeway chart values", ...schema };
}
