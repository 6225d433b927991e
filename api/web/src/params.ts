/**
 * The submission parameters as the form shows them: default, bounds and a one-line explanation,
 * read from the contract's zod schema (PredictionParams) and the field docs, never restated.
 */
import { z } from "zod";
import { PredictionParams } from "@causeway/contract";
import { PARAMETERS } from "@causeway/api/schemas/field-docs.ts";

export interface ParamSpec {
  name: string;
  label: string;
  help: string;
  defaultValue: number | null;
  min?: number;
  max?: number;
  exclusiveMin?: number;
  integer: boolean;
  nullable: boolean;
}

type JsonSchema = {
  type?: string | string[];
  anyOf?: JsonSchema[];
  default?: unknown;
  minimum?: number;
  maximum?: number;
  exclusiveMinimum?: number;
};

const SHOWN = [
  "deg_significance_fold",
  "min_mean_expression",
  "n_randomizations",
  "top_n_causal_degs",
  "min_path_fraction",
  "min_path_probability",
  "max_path_length",
  "min_degs_fold_uniform",
] as const;

function numericPart(s: JsonSchema): JsonSchema {
  return s.anyOf?.find((a) => a.type === "number" || a.type === "integer") ?? s;
}

export const PARAM_SPECS: ParamSpec[] = SHOWN.map((name) => {
  const schema = z.toJSONSchema(PredictionParams.shape[name], { io: "input" }) as JsonSchema;
  const n = numericPart(schema);
  const spec: ParamSpec = {
    name,
    label: name.replaceAll("_", " "),
    help: PARAMETERS[name].summary,
    defaultValue: typeof schema.default === "number" ? schema.default : null,
    integer: n.type === "integer",
    nullable: schema.anyOf?.some((a) => a.type === "null") ?? false,
  };
  if (n.minimum !== undefined) spec.min = n.minimum;
  if (n.maximum !== undefined) spec.max = n.maximum;
  if (n.exclusiveMinimum !== undefined) spec.exclusiveMin = n.exclusiveMinimum;
  return spec;
});

/** The bounds of a parameter in words ("1 to 10,000", "above 0, at most 1"). */
export function boundsText(p: ParamSpec): string {
  const f = (v: number) => v.toLocaleString("en");
  const low =
    p.exclusiveMin !== undefined
      ? `above ${f(p.exclusiveMin)}`
      : p.min !== undefined
        ? `at least ${f(p.min)}`
        : null;
  const high = p.max !== undefined ? `at most ${f(p.max)}` : null;
  const parts = [low, high].filter((x) => x !== null);
  const kind = p.integer ? "a whole number" : "a number";
  return parts.length > 0 ? `${kind}, ${parts.join(", ")}` : kind;
}

/** Checks one value as the server will (the same schema); null when valid. */
export function checkParam(p: ParamSpec, raw: string): string | null {
  if (raw.trim() === "") return null;
  const v = Number(raw);
  const r = PredictionParams.shape[p.name as (typeof SHOWN)[number]].safeParse(v);
  return r.success ? null : `Must be ${boundsText(p)}.`;
}
