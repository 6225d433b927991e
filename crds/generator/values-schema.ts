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
  "operator.podFailurePolicy": ["auto", "true", "false"],
};

/** Lower bounds of counts and durations. */
const MINIMUM: Record<string, number> = {
  "api.replicaCount": 1,
  "operator.replicaCount": 1,
  "operator.concurrency": 1,
  "runner.activeDeadlineSeconds": 1,
  "runner.pendingTimeoutSeconds": 1,
  "runner.backoffLimit": 0,
  "runner.ttlSecondsAfterFinished": 0,
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
      return schema;
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
  if (missing.length > 0 || unused.length > 0) {
    throw new Error(
      `values.yaml docs out of sync: undocumented [${missing.join(", ")}], unknown @param [${unused.join(", ")}]`,
    );
  }
  return { $schema: "http://json-schema.org/draft-07/schema#", title: "causeway chart values", ...schema };
}
