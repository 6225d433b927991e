/**
 * Builds the CustomResourceDefinitions from the contract's zod schemas (spec) and
 * crds/src/resources.ts (status). crds/generator/generate.ts writes them out; a unit test checks the
 * committed YAML still equals this output.
 */
import { z } from "zod";
import { CausalAnalysisJobSpec, PredictionJobSpec, type JobKind } from "../src/index.ts";
import { CATEGORIES, CausewayStatus, GROUP, RESOURCES, VERSION } from "../src/resources.ts";
import { toStructural, type JsonSchema } from "./structural.ts";

const SPEC_SCHEMAS = { prediction: PredictionJobSpec, causal_analysis: CausalAnalysisJobSpec } as const;

function jsonSchema(schema: z.ZodType, io: "input" | "output"): JsonSchema {
  return z.toJSONSchema(schema, { target: "openapi-3.0", io, unrepresentable: "throw" }) as JsonSchema;
}

/** The openAPIV3Schema of `spec` for a kind (defaults included: the apiserver applies them). */
export function specSchema(kind: JobKind): JsonSchema {
  const spec = toStructural(jsonSchema(SPEC_SCHEMAS[kind], "input"));
  return {
    ...spec,
    description: "The runner's job spec (crds/src/job-spec.ts): references and parameters, never data.",
    // Enforced from Kubernetes 1.25 (CEL); older servers ignore it and the operator never re-reads a changed spec.
    "x-kubernetes-validations": [{ rule: "self == oldSelf", message: "spec is immutable" }],
  };
}

/** The openAPIV3Schema of `status`. */
export function statusSchema(): JsonSchema {
  const schema = toStructural(jsonSchema(CausewayStatus, "output"));
  // Every status field is optional: each writer sets only its own.
  delete schema.required;
  return {
    ...schema,
    description: "Written by the operator and the API, one writer per field (crds/README.md).",
  };
}

interface PrinterColumn {
  name: string;
  type: string;
  jsonPath: string;
  description?: string;
  priority?: number;
}

function printerColumns(kind: JobKind): PrinterColumn[] {
  const second: PrinterColumn =
    kind === "prediction"
      ? { name: "Job Type", type: "string", jsonPath: ".spec.job_type" }
      : { name: "Prediction", type: "string", jsonPath: ".spec.prediction_id", priority: 1 };
  return [
    { name: "Status", type: "string", jsonPath: ".status.phase" },
    second,
    { name: "Target", type: "string", jsonPath: ".spec.target" },
    {
      name: "Progress",
      type: "integer",
      jsonPath: ".status.reported.progressPct",
      description: "Percent done",
    },
    { name: "Step", type: "string", jsonPath: ".status.reported.processingStep", priority: 1 },
    { name: "Reason", type: "string", jsonPath: ".status.failure.reason", priority: 1 },
    { name: "Age", type: "date", jsonPath: ".metadata.creationTimestamp" },
  ];
}

/** A CustomResourceDefinition (apiextensions.k8s.io/v1) as a plain object. */
export function buildCrd(kind: JobKind): Record<string, unknown> {
  const names = RESOURCES[kind];
  const status = statusSchema();
  return {
    apiVersion: "apiextensions.k8s.io/v1",
    kind: "CustomResourceDefinition",
    metadata: {
      name: `${names.plural}.${GROUP}`,
      labels: { "app.kubernetes.io/part-of": "causeway" },
    },
    spec: {
      group: GROUP,
      scope: "Namespaced",
      names: {
        kind: names.kind,
        listKind: names.listKind,
        plural: names.plural,
        singular: names.singular,
        shortNames: [...names.shortNames],
        categories: [...CATEGORIES],
      },
      versions: [
        {
          name: VERSION,
          served: true,
          storage: true,
          subresources: { status: {} },
          additionalPrinterColumns: printerColumns(kind),
          schema: {
            openAPIV3Schema: {
              type: "object",
              description: `${names.kind}: one ${kind} job of the causeway service, run by the operator as a Job.`,
              required: ["spec"],
              properties: {
                apiVersion: { type: "string" },
                kind: { type: "string" },
                metadata: { type: "object" },
                spec: specSchema(kind),
                status,
              },
            },
          },
        },
      ],
    },
  };
}

/** File names of the generated CRDs, per kind. */
export const CRD_FILES: Record<JobKind, string> = {
  prediction: `${GROUP}_${RESOURCES.prediction.plural}.yaml`,
  causal_analysis: `${GROUP}_${RESOURCES.causal_analysis.plural}.yaml`,
};
