import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { Ajv, type ValidateFunction } from "ajv";
import { parse } from "yaml";
import { aCausalAnalysis, aPrediction } from "../../test/builders/prediction.ts";
import { generatedFiles, ROOT } from "./generate.ts";
import { buildCrd } from "./crd.ts";

/** ajv for a Kubernetes openAPIV3Schema: OpenAPI 3.0 keywords and x-kubernetes-* extensions. */
function compile(schema: unknown): ValidateFunction {
  const ajv = new Ajv({ strict: false, allErrors: true, formats: { uuid: true, "date-time": true } });
  for (const k of [
    "x-kubernetes-preserve-unknown-fields",
    "x-kubernetes-list-type",
    "x-kubernetes-list-map-keys",
    "x-kubernetes-validations",
  ]) {
    ajv.addKeyword(k);
  }
  // ajv knows OpenAPI's `nullable`; boolean `exclusiveMinimum` (draft 4) is rewritten before compiling.
  return ajv.compile(toJsonSchema(schema) as Record<string, unknown>);
}

function toJsonSchema(node: unknown): unknown {
  if (Array.isArray(node)) return node.map(toJsonSchema);
  if (node === null || typeof node !== "object") return node;
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(node)) out[k] = toJsonSchema(v);
  if (out.exclusiveMinimum === true) {
    out.exclusiveMinimum = out.minimum;
    delete out.minimum;
  }
  return out;
}

const generated = await generatedFiles();

function crdSchema(file: string): unknown {
  const crd = parse(readFileSync(join(ROOT, "crds", file), "utf8")) as {
    spec: { versions: { schema: { openAPIV3Schema: unknown } }[] };
  };
  return crd.spec.versions[0]?.schema.openAPIV3Schema;
}

describe("generated manifests", () => {
  it.each([...generated].map(([path, text]) => ({ path, text })))(
    "$path is up to date (npm run crds:generate)",
    ({ path, text }) => {
      expect(readFileSync(join(ROOT, path), "utf8")).toBe(text);
    },
  );
});

describe("CRD schemas", () => {
  const prediction = compile(crdSchema("causeway.io_predictions.yaml"));
  const causal = compile(crdSchema("causeway.io_causalanalyses.yaml"));

  it("accept the builders' sample resources", () => {
    const p = aPrediction()
      .created()
      .reported({ status: "processing", processingStep: "model_loaded", progressPct: 45 })
      .build();
    expect(prediction(p), JSON.stringify(prediction.errors)).toBe(true);
    const split = aPrediction({
      job_type: "target_validation",
      target: "STAT1|PROTEIN",
      inputs: { shape: "split", control_key: "a", perturbed_key: "b", degs_key: "c" },
    }).build();
    expect(prediction(split), JSON.stringify(prediction.errors)).toBe(true);
    expect(
      causal(aCausalAnalysis({ metadata: { any: { nested: [1] } } })),
      JSON.stringify(causal.errors),
    ).toBe(true);
  });

  it.each([
    ["a split input without its keys", { inputs: { shape: "split", control_key: "a" } }],
    ["a merged input without dataset_key", { inputs: { shape: "merged" } }],
    [
      "top_n_causal_degs above the spec's bound",
      { params: { ...aPrediction().build().spec.params, top_n_causal_degs: 100_001 } },
    ],
    [
      "min_path_probability of 0",
      { params: { ...aPrediction().build().spec.params, min_path_probability: 0 } },
    ],
    ["an unknown job type", { job_type: "other" }],
    ["the other kind", { kind: "causal_analysis" }],
    ["a non-uuid job id", { job_id: "x" }],
  ])("reject %s", (_name, patch) => {
    const r = aPrediction().build();
    expect(prediction({ ...r, spec: { ...r.spec, ...patch } })).toBe(false);
  });

  it("keeps the schema structural: no types, defaults or nullable inside oneOf", () => {
    const walk = (node: Record<string, unknown>): void => {
      for (const branch of (node.oneOf ?? node.anyOf ?? []) as Record<string, unknown>[]) {
        expect(
          Object.keys(branch).filter((k) => ["type", "default", "nullable", "description"].includes(k)),
        ).toEqual([]);
      }
      expect(typeof node.type === "string" || node["x-kubernetes-preserve-unknown-fields"] === true).toBe(
        true,
      );
      if (node.properties) expect(node.additionalProperties).toBeUndefined();
      const children = [
        ...Object.values((node.properties ?? {}) as Record<string, Record<string, unknown>>),
        ...(node.items ? [node.items as Record<string, unknown>] : []),
        ...(typeof node.additionalProperties === "object"
          ? [node.additionalProperties as Record<string, unknown>]
          : []),
      ];
      children.forEach(walk);
    };
    const schemaOf = (crd: Record<string, unknown>) =>
      (crd as { spec: { versions: { schema: { openAPIV3Schema: Record<string, unknown> } }[] } }).spec
        .versions[0]!.schema.openAPIV3Schema;
    walk(schemaOf(buildCrd("prediction")));
    walk(schemaOf(buildCrd("causal_analysis")));
  });
});
