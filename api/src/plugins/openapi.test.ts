/**
 * The OpenAPI document as a generator reads it, and the answers to what it does not declare:
 * input schemas for request bodies, one component per schema, the merged-or-split choice,
 * links, and 405 with Allow for undeclared methods on known paths.
 */
import { Ajv } from "ajv";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { buildTestApp, type TestApp } from "../testing/helper.ts";

let t: TestApp;
let doc: unknown;
let key: string;

beforeAll(async () => {
  t = await buildTestApp();
  doc = (await t.app.inject({ url: "/openapi.json" })).json();
  key = (await t.account("internal")).key;
}, 120_000);
afterAll(async () => t.close());

/** The value at a path of the parsed document; undefined when absent. */
const at = (value: unknown, ...path: (string | number)[]): unknown =>
  path.reduce<unknown>(
    (v, k) => (v !== null && typeof v === "object" ? (v as Record<string | number, unknown>)[k] : undefined),
    value,
  );
const obj = (v: unknown): Record<string, unknown> =>
  v !== null && typeof v === "object" ? (v as Record<string, unknown>) : {};
const arr = (v: unknown): unknown[] => (Array.isArray(v) ? v : []);
const schemas = () => obj(at(doc, "components", "schemas"));
const resolve = (s: unknown): unknown => {
  const ref = at(s, "$ref");
  return typeof ref === "string" ? schemas()[ref.split("/").pop()!] : s;
};
const operations = () => Object.values(obj(at(doc, "paths"))).flatMap((item) => Object.values(obj(item)));

describe("the OpenAPI document", () => {
  it("has one component per schema, every one referenced, none an Input twin", () => {
    const names = Object.keys(schemas());
    expect(names.filter((n) => n.endsWith("Input"))).toEqual([]);
    const text = JSON.stringify(doc);
    for (const name of names) expect(text).toContain(`"#/components/schemas/${name}"`);
    for (const ref of text.match(/#\/components\/schemas\/[A-Za-z0-9_]+/g) ?? [])
      expect(names).toContain(ref.split("/").pop());
    expect(names).toContain("CreateCausalAnalysisRequest");
    expect(names).toContain("PredictionCreateForm");
  });

  it("describes POST /v1/predictions as the input form: defaults not required, files binary, merged or split", () => {
    const media = at(
      doc,
      "paths",
      "/v1/predictions",
      "post",
      "requestBody",
      "content",
      "multipart/form-data",
    );
    expect(at(media, "encoding", "degs", "contentType")).toBe("application/json");
    const [formRef, shapes, rule] = arr(at(media, "schema", "allOf"));
    const form = resolve(formRef);
    expect(at(form, "required") ?? []).toEqual([]);
    expect(at(form, "additionalProperties")).toBe(false);
    for (const f of ["dataset", "dataset_control", "dataset_pert"])
      expect(at(form, "properties", f)).toMatchObject({ type: "string", format: "binary" });
    expect(at(form, "properties", "job_type")).toMatchObject({ default: "target_id" });
    expect(at(form, "properties", "top_n_causal_degs")).toMatchObject({
      default: 1000,
      minimum: 1,
      maximum: 100000,
    });
    expect(at(form, "properties", "degs")).toMatchObject({ type: "array", items: { type: "string" } });
    expect(arr(at(shapes, "oneOf")).map((s) => at(s, "title"))).toEqual(["merged", "split"]);

    // The composed schema accepts exactly the shapes the server accepts.
    const ajv = new Ajv({ strict: false });
    // The field schemas are OpenAPI 3.0 (boolean exclusiveMinimum); the shapes are plain JSON Schema.
    const validate = ajv.compile({ allOf: [shapes, rule] });
    const merged = { dataset: "…" };
    const split = { dataset_control: "…", dataset_pert: "…", degs: ["IFIT1"] };
    expect(validate(merged)).toBe(true);
    expect(validate({ ...split, job_type: "target_validation", target: "STAT1|PROTEIN" })).toBe(true);
    expect(validate({ ...split, job_type: "target_validation" })).toBe(false);
    expect(validate({ ...merged, job_type: "target_validation", target: "STAT1|PROTEIN" })).toBe(false);
    expect(validate({ ...merged, ...split })).toBe(false);
    expect(validate({})).toBe(false);
  });

  it("uses the input view of JSON bodies: defaults are not required", () => {
    const body = resolve(
      at(doc, "paths", "/v1/causal-analysis", "post", "requestBody", "content", "application/json", "schema"),
    );
    expect(arr(at(body, "required")).sort()).toEqual(["prediction_id", "target"]);
  });

  it("links each 202 to the routes that read what it created", () => {
    const links = obj(at(doc, "paths", "/v1/predictions", "post", "responses", "202", "links"));
    expect(links.GetPrediction).toEqual({
      operationId: "getPrediction",
      parameters: { prediction_id: "$response.body#/prediction_id" },
    });
    const ids = new Set(operations().map((op) => at(op, "operationId")));
    // The contract's 14 routes, the prediction's event stream, its target-table pages, gene resolution
    // and the two causal-graph exports.
    expect(ids.size).toBe(19);
    const causal = obj(at(doc, "paths", "/v1/causal-analysis", "post", "responses", "202", "links"));
    for (const link of Object.values({ ...links, ...causal })) expect(ids).toContain(at(link, "operationId"));
  });

  it("documents the cursor as an opaque token and 400/403/413 answers", () => {
    const cursor = arr(at(doc, "paths", "/v1/predictions", "get", "parameters")).find(
      (p) => at(p, "name") === "cursor",
    );
    expect(at(cursor, "schema", "description") ?? at(cursor, "description")).toMatch(/[Oo]paque/);
    for (const op of operations()) {
      expect(at(op, "responses")).toHaveProperty("400");
      expect(at(op, "responses", "403", "content")).toHaveProperty("text/html");
    }
    expect(at(doc, "paths", "/v1/predictions", "post", "responses")).toHaveProperty("413");
    expect(at(doc, "components", "responses", "MethodNotAllowed", "headers")).toHaveProperty("Allow");
  });

  it("declares that free-text parameters hold no NUL character, which the server refuses (422)", async () => {
    const q = arr(at(doc, "paths", "/v1/predictions/{prediction_id}/targets", "get", "parameters")).find(
      (p) => at(p, "name") === "q",
    );
    const pattern = at(q, "schema", "pattern");
    expect(typeof pattern).toBe("string");
    const re = new RegExp(pattern as string, "u");
    expect(re.test("STAT1")).toBe(true);
    expect(re.test("~8\u0000x")).toBe(false);
    // Every free-text string parameter says it; a uuid or an enum keeps its own rule.
    for (const op of operations())
      for (const p of arr(at(op, "parameters"))) {
        const schema = at(p, "schema");
        if (
          at(schema, "type") === "string" &&
          at(schema, "format") === undefined &&
          at(schema, "enum") === undefined
        )
          expect(at(schema, "pattern"), `${String(at(p, "name"))}`).toBeDefined();
      }
    const res = await t.app.inject({
      url: "/v1/predictions?cursor=%00",
      headers: { "x-api-key": key },
    });
    expect(res.statusCode).toBe(422);
  });

  it.each([
    ["/v1/predictions", "post"],
    ["/v1/predictions/{prediction_id}", "get"],
    ["/v1/predictions/{prediction_id}/events", "get"],
    ["/v1/causal-analysis", "post"],
  ])("declares the 429 that %s %s answers when a limit is reached", (path, method) => {
    expect(at(doc, "paths", path, method, "responses")).toHaveProperty("429");
  });
});

describe("methods a path does not declare", () => {
  it.each([
    ["DELETE", "/v1/predictions", "GET, HEAD, POST"],
    ["PUT", "/v1/predictions/6f1c1f7e-8f8e-4a43-9d39-9b8f3f1f2b10", "GET, HEAD"],
    ["POST", "/v1/usage/predictions/quota", "GET, HEAD"],
    ["PATCH", "/health/", "GET, HEAD"],
  ])("%s %s is 405 with Allow: %s", async (method, url, allow) => {
    const res = await t.app.inject({ method: method as "DELETE", url, headers: { "x-api-key": key } });
    expect(res.statusCode).toBe(405);
    expect(res.headers.allow).toBe(allow);
    expect(res.headers["x-service-error-code"]).toBe("method_not_allowed");
    expect(res.json()).toEqual({ detail: expect.stringContaining("not allowed") });
  });

  it("answers QUERY on a known path 405 too, with or without a content type", async () => {
    for (const headers of [{}, { "content-type": "application/json" }]) {
      const res = await t.app.inject({
        method: "QUERY" as "GET",
        url: "/v1/predictions",
        headers,
        payload: "{}",
      });
      expect(res.statusCode).toBe(405);
      expect(res.headers.allow).toBe("GET, HEAD, POST");
    }
  });

  it("keeps 404 for unknown paths", async () => {
    const res = await t.app.inject({ method: "DELETE", url: "/v1/nothing-here" });
    expect(res.statusCode).toBe(404);
    expect(res.headers.allow).toBeUndefined();
  });
});

describe("missing required query parameters", () => {
  it("says the parameter is required, in the 422 body", async () => {
    const res = await t.app.inject({
      url: "/v1/predictions/6f1c1f7e-8f8e-4a43-9d39-9b8f3f1f2b10/intermediary-proteins",
      headers: { "x-api-key": key },
    });
    expect(res.statusCode).toBe(422);
    expect(res.json()).toEqual({
      detail: [{ loc: ["query", "top_n_degs"], msg: "Field required", type: "missing" }],
    });
    const bad = await t.app.inject({
      url: "/v1/predictions/6f1c1f7e-8f8e-4a43-9d39-9b8f3f1f2b10/intermediary-proteins?top_n_degs=x",
      headers: { "x-api-key": key },
    });
    expect(bad.json().detail[0]).toMatchObject({ loc: ["query", "top_n_degs"], type: "invalid_type" });
  });
});
