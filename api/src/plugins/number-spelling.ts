/**
 * Numbers in query strings and form fields are read with `Number()` (zod's coercion), which also
 * takes `0x10`, `0b1`, `0o7`, `1e2`, `Infinity` and surrounding blanks: `top_n_causal_degs=0x10`
 * was a 16 and `limit=1e2` a 100. The contract's integers are written in plain decimal and its
 * other numbers in decimal with an optional exponent; any other spelling is a 422 naming the
 * field. Which fields are numbers is read from the route's own zod schema, so a new numeric
 * parameter is covered without a list to keep.
 */
import type { FastifyInstance } from "fastify";
import { RequestValidationError, type ValidationItem } from "../errors.ts";

type NumberKind = "integer" | "number";

const INTEGER = /^[+-]?\d+$/;
const DECIMAL = /^[+-]?(?:\d+(?:\.\d*)?|\.\d+)(?:[eE][+-]?\d+)?$/;

interface ZodLike {
  _zod: { def: { type: string; out?: unknown; innerType?: unknown } };
  format?: string | null;
}

const isZod = (s: unknown): s is ZodLike =>
  typeof s === "object" && s !== null && "_zod" in s && typeof (s as ZodLike)._zod?.def?.type === "string";

/** Whether a field's schema is a number (through defaults, optionals and preprocessing), and which. */
export function numberKind(schema: unknown): NumberKind | null {
  let s: unknown = schema;
  for (let depth = 0; depth < 16 && isZod(s); depth++) {
    const def = s._zod.def;
    if (def.type === "number") return (s.format ?? "").includes("int") ? "integer" : "number";
    if (def.type === "pipe") s = def.out;
    else if (def.innerType !== undefined) s = def.innerType;
    else return null;
  }
  return null;
}

const kindsCache = new WeakMap<object, Map<string, NumberKind>>();

/** The numeric fields of an object schema, by name (none for anything else). */
export function numericFields(schema: unknown): Map<string, NumberKind> {
  if (typeof schema !== "object" || schema === null) return new Map();
  let kinds = kindsCache.get(schema);
  if (!kinds) {
    kinds = new Map();
    const shape = (schema as { shape?: unknown }).shape;
    if (typeof shape === "object" && shape !== null)
      for (const [name, field] of Object.entries(shape)) {
        const kind = numberKind(field);
        if (kind) kinds.set(name, kind);
      }
    kindsCache.set(schema, kinds);
  }
  return kinds;
}

/** The 422 items of numeric fields in `values` spelled other than in plain decimal. */
export function numberSpellingItems(
  schema: unknown,
  values: Record<string, unknown>,
  loc: string,
): ValidationItem[] {
  const items: ValidationItem[] = [];
  for (const [name, kind] of numericFields(schema)) {
    const raw = values[name];
    for (const v of Array.isArray(raw) ? raw : [raw]) {
      // Absent, empty (a form's "absent") or already a number (JSON): nothing to read.
      if (typeof v !== "string" || v === "") continue;
      // Not a number in any spelling: the schema's own message says so.
      if (Number.isNaN(Number(v))) continue;
      if ((kind === "integer" ? INTEGER : DECIMAL).test(v)) continue;
      items.push({
        loc: [loc, name],
        msg:
          kind === "integer"
            ? "must be an integer written in decimal digits (no hex, exponent or blanks)"
            : "must be a number written in decimal (an exponent is allowed; no hex or blanks)",
        type: kind === "integer" ? "int_parsing" : "float_parsing",
        input: v,
      });
    }
  }
  return items;
}

/** Throws the 422 of {@link numberSpellingItems}. */
export function assertNumberSpelling(schema: unknown, values: Record<string, unknown>, loc: string): void {
  const items = numberSpellingItems(schema, values, loc);
  if (items.length > 0) throw new RequestValidationError(items);
}

/** Checks the query string of every route whose schema declares one. */
export function registerNumberSpelling(app: FastifyInstance): void {
  app.addHook("preValidation", async (request) => {
    const schema = request.routeOptions.schema?.querystring;
    if (!schema || typeof request.query !== "object" || request.query === null) return;
    assertNumberSpelling(schema, request.query as Record<string, unknown>, "query");
  });
}
