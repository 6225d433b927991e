/**
 * Turns the JSON Schema that zod emits (target openapi-3.0) into a Kubernetes *structural*
 * schema: every node typed, no type/default/nullable inside oneOf, no schema-less
 * additionalProperties. Discriminated unions are flattened: the union of the branches'
 * properties is declared outside, and a `oneOf` keeps only `required` and the discriminator's
 * enum per branch, which the apiserver allows and still enforces.
 */

/** A JSON Schema node (the subset zod produces). */
export interface JsonSchema {
  type?: string;
  properties?: Record<string, JsonSchema>;
  required?: string[];
  additionalProperties?: JsonSchema | boolean;
  items?: JsonSchema;
  oneOf?: JsonSchema[];
  anyOf?: JsonSchema[];
  enum?: unknown[];
  default?: unknown;
  nullable?: boolean;
  description?: string;
  minimum?: number;
  maximum?: number;
  [key: string]: unknown;
}

const SAFE = Number.MAX_SAFE_INTEGER;

/** Returns a structural copy of `schema`; throws on shapes it cannot express. */
export function toStructural(schema: JsonSchema): JsonSchema {
  const out: JsonSchema = { ...schema };
  delete out.$schema;
  delete out.id;
  // zod's int bounds are JS safe-integer limits, not domain bounds.
  if (out.maximum === SAFE) delete out.maximum;
  if (out.minimum === -SAFE) delete out.minimum;
  // A null default equals "absent" for the runner (zod fills it); older apiservers reject it.
  if (out.default === null) delete out.default;
  // The apiserver validates date-time itself; zod's long lookahead-free regex adds nothing.
  if (out.format === "date-time") delete out.pattern;
  // A structural schema may not combine `properties` with `additionalProperties`; unknown
  // fields are pruned by the apiserver anyway, which is what `false` asked for.
  if (out.additionalProperties === false) delete out.additionalProperties;

  const union = out.oneOf ?? out.anyOf;
  if (union) return flattenUnion(out, union);

  if (out.properties) {
    out.properties = Object.fromEntries(Object.entries(out.properties).map(([k, v]) => [k, toStructural(v)]));
  }
  if (out.items) out.items = toStructural(out.items);
  if (
    out.type === "object" &&
    out.additionalProperties !== undefined &&
    typeof out.additionalProperties === "object"
  ) {
    const ap = out.additionalProperties;
    if (ap.type === undefined) {
      // Free-form values (e.g. `metadata: record<string, unknown>`): the one place we must keep unknowns.
      delete out.additionalProperties;
      out["x-kubernetes-preserve-unknown-fields"] = true;
    } else {
      out.additionalProperties = toStructural(ap);
    }
  }
  if (out.type === undefined)
    throw new Error(`schema node without a type: ${JSON.stringify(schema).slice(0, 200)}`);
  return out;
}

function flattenUnion(node: JsonSchema, union: JsonSchema[]): JsonSchema {
  const branches = union.map(toStructural);
  if (!branches.every((b) => b.type === "object" && b.properties)) {
    throw new Error("only unions of objects can be flattened");
  }
  const properties: Record<string, JsonSchema> = {};
  for (const b of branches) {
    for (const [k, v] of Object.entries(b.properties ?? {})) {
      const prev = properties[k];
      if (!prev) properties[k] = v;
      else if (prev.enum && v.enum)
        properties[k] = { ...prev, enum: [...new Set([...prev.enum, ...v.enum])] };
      else if (prev.type !== v.type) throw new Error(`property ${k} has different types across branches`);
    }
  }
  const requiredEverywhere = branches
    .map((b) => b.required ?? [])
    .reduce((acc, r) => acc.filter((k) => r.includes(k)));
  const oneOf = branches.map((b) => {
    const discriminators = Object.fromEntries(
      Object.entries(b.properties ?? {})
        .filter(([, v]) => Array.isArray(v.enum))
        .map(([k, v]) => [k, { enum: v.enum }]),
    );
    return { required: b.required ?? [], properties: discriminators };
  });
  const rest = { ...node };
  delete rest.oneOf;
  delete rest.anyOf;
  return {
    ...rest,
    type: "object",
    properties,
    ...(requiredEverywhere.length > 0 ? { required: requiredEverywhere } : {}),
    oneOf,
  };
}
