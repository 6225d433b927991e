/**
 * Text checks before anything reaches PostgreSQL. PostgreSQL refuses a NUL character in `text`
 * and `jsonb` and a lone UTF-16 surrogate in `jsonb` (a JSON body can carry both as `\u0000`
 * and `\ud800`), and a deeply nested JSON value overflows the stack of `JSON.stringify` when it
 * is stored: each would be a 500. Here they are a 422 naming the field, for every JSON body,
 * query string and path parameter (a `preValidation` hook) and for every multipart text part,
 * JSON part and file name (prediction-request.ts calls the same checks).
 *
 * JSON.parse itself is iterative in V8 (a million levels parse), so the depth is checked on the
 * parsed value, without recursion.
 */
import type { FastifyInstance } from "fastify";
import { RequestValidationError, type ValidationItem } from "../errors.ts";

/** Deepest nesting of objects and arrays a JSON value may have (the body itself is level 1). */
export const MAX_JSON_DEPTH = 32;

/** Why a string cannot be stored, or null when it can. */
export function textProblem(s: string): string | null {
  if (s.includes("\u0000")) return "must not contain a NUL character (\\u0000)";
  if (!s.isWellFormed()) return "must not contain a lone UTF-16 surrogate";
  return null;
}

/**
 * The first problem in a parsed value under `loc`: a bad string (value or key) or nesting
 * deeper than `maxDepth`. Iterative, so a hostile depth costs no stack.
 */
export function findTextProblem(
  value: unknown,
  loc: (string | number)[],
  maxDepth = MAX_JSON_DEPTH,
): ValidationItem | null {
  const stack: { v: unknown; loc: (string | number)[]; depth: number }[] = [{ v: value, loc, depth: 0 }];
  while (stack.length > 0) {
    const { v, loc: at, depth } = stack.pop()!;
    if (typeof v === "string") {
      const problem = textProblem(v);
      if (problem) return { loc: at, msg: `text ${problem}`, type: "string_invalid_text" };
      continue;
    }
    if (v === null || typeof v !== "object" || Buffer.isBuffer(v)) continue;
    if (depth + 1 > maxDepth)
      return {
        loc: at,
        msg: `JSON nesting deeper than ${maxDepth} levels`,
        type: "json_too_deep",
        ctx: { max_depth: maxDepth },
      };
    if (Array.isArray(v)) {
      for (let i = v.length - 1; i >= 0; i--) stack.push({ v: v[i], loc: [...at, i], depth: depth + 1 });
      continue;
    }
    for (const [key, child] of Object.entries(v)) {
      const problem = textProblem(key);
      if (problem) return { loc: [...at, key], msg: `key ${problem}`, type: "string_invalid_text" };
      stack.push({ v: child, loc: [...at, key], depth: depth + 1 });
    }
  }
  return null;
}

/** Throws the 422 of {@link findTextProblem}. */
export function assertCleanText(value: unknown, loc: (string | number)[], maxDepth = MAX_JSON_DEPTH): void {
  const item = findTextProblem(value, loc, maxDepth);
  if (item) throw new RequestValidationError([item]);
}

/**
 * A form's text part: the text itself and, when it is JSON text (the `degs` field is a JSON
 * array), the strings it holds. `"\u0000"` and `"\ud800"` are clean text as written and become
 * a NUL or a lone surrogate only once parsed, which the job would then carry into its results:
 * PostgreSQL refused those results after the job had run and been charged.
 */
export function assertCleanFormText(value: unknown, loc: (string | number)[]): void {
  assertCleanText(value, loc);
  if (typeof value !== "string" || !/^\s*[[{"]/.test(value)) return;
  let parsed: unknown;
  try {
    parsed = JSON.parse(value);
  } catch {
    // Not JSON after all: the field's own validation says what is wrong with it.
    return;
  }
  assertCleanText(parsed, loc);
}

/** Checks every route's parsed body, query and path parameters before schema validation. */
export function registerTextGuard(app: FastifyInstance): void {
  app.addHook("preValidation", async (request) => {
    // Runner callbacks are authenticated machine messages with their own schema.
    if (request.url.startsWith("/internal/")) return;
    // The body is level 1; its values count from there.
    assertCleanText(request.params, ["path"], 2);
    assertCleanText(request.query, ["query"], 2);
    if (request.body !== undefined) assertCleanText(request.body, ["body"], MAX_JSON_DEPTH);
  });
}
