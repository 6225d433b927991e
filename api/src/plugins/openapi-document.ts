/**
 * Finishing touches on the generated OpenAPI document, so that generators (openapi-generator,
 * openapi-python-client, orval) and Schemathesis read it the way the server behaves:
 * - one component per schema: the type provider emits an input and an output twin of every
 *   registered schema; only the referenced ones are kept, and a twin that is identical to its
 *   sibling, or has none, takes the plain name;
 * - the multipart body of POST /v1/predictions is the input form plus the choice between the
 *   merged file and the split pair, and the rule that target_validation needs a target and the
 *   split pair;
 * - stable operationIds, response descriptions, the 400/403/413 answers every route can give,
 *   and links from the 202 of each POST to the routes that read what it created;
 * - a free-text query or path parameter declares that it holds no NUL character, which the
 *   server refuses in every request (plugins/text-guard.ts: PostgreSQL cannot store it).
 */

type Json = Record<string, unknown>;
type Operation = {
  operationId?: string;
  requestBody?: Json;
  responses: Record<string, Json>;
  [k: string]: unknown;
};
type Paths = Record<string, Record<string, Operation>>;

const REF_PREFIX = "#/components/schemas/";
const METHODS = ["get", "put", "post", "delete", "options", "head", "patch", "trace"];

/** Explicit ids of the contract's operations; any other route gets one derived from its path. */
const OPERATION_IDS: Record<string, string> = {
  "GET /health": "health",
  "POST /v1/predictions": "createPrediction",
  "GET /v1/predictions": "listPredictions",
  "GET /v1/predictions/{prediction_id}": "getPrediction",
  "GET /v1/predictions/{prediction_id}/mapped-degs": "getMappedDegs",
  "GET /v1/predictions/{prediction_id}/degs-impacted": "getDegsImpacted",
  "GET /v1/predictions/{prediction_id}/causal-paths": "getCausalPaths",
  "GET /v1/predictions/{prediction_id}/intermediary-proteins": "getIntermediaryProteins",
  "GET /v1/predictions/{prediction_id}/causal-graph": "getCausalGraph",
  "GET /v1/predictions/{prediction_id}/events": "streamPredictionEvents",
  "POST /v1/causal-analysis": "createCausalAnalysis",
  "GET /v1/causal-analysis": "listCausalAnalyses",
  "GET /v1/causal-analysis/{causal_analysis_id}": "getCausalAnalysis",
  "GET /v1/causal-analysis/{causal_analysis_id}/graph": "getCausalAnalysisGraph",
  "GET /v1/usage/predictions/quota": "getQuota",
  "GET /v1/predictions/{prediction_id}/targets": "getPredictionTargets",
  "POST /v1/genes/resolve": "resolveGenes",
};

const STATUS_TEXT: Record<string, string> = {
  "200": "OK",
  "202": "Accepted: the job is queued",
  "400": "Malformed request (X-Service-Error-Code: bad_request)",
  "401": "Missing or invalid API key (X-Service-Error-Code: unauthorized)",
  "403":
    "Forbidden: an account-policy refusal carries X-Service-Error-Code and a JSON body; an edge block " +
    "(more than the edge limit of requests per client address) has no such header and an HTML body. " +
    "Clients retry GET requests on edge blocks after Retry-After, never POST.",
  "404": "Missing, not owned by the caller, not completed, or not available to the account tier",
  "413": "The request body or an uploaded file is too large (X-Service-Error-Code: payload_too_large)",
  "422": "Validation failure (HTTPValidationError)",
  "429":
    "A limit was hit; X-Service-Error-Code says which (rate_limited, inflight_limit, " +
    "external_prediction_quota_exceeded); rate_limited carries Retry-After",
  "500": "Internal error; details are not returned",
  "503": "A dependency is unavailable; retry after Retry-After",
};

const errorRef = { $ref: `${REF_PREFIX}ErrorResponse` };
const jsonError = (status: string): Json => ({
  description: STATUS_TEXT[status],
  content: { "application/json": { schema: errorRef } },
});
const edgeBlock = { "text/html": { schema: { type: "string" } } };

/** The multipart body of POST /v1/predictions: the form's fields and the two input shapes. */
function predictionCreateBody(formRef: string): Json {
  const split = ["dataset_control", "dataset_pert", "degs"];
  return {
    required: true,
    content: {
      "multipart/form-data": {
        schema: {
          allOf: [
            { $ref: formRef },
            {
              description: "Exactly one input shape: the merged file, or the split pair with its DEGs.",
              // Without `not`: Schemathesis cannot evaluate it over binary parts. A body with
              // both shapes still matches both branches, which oneOf rejects.
              oneOf: [
                { title: "merged", required: ["dataset"] },
                { title: "split", required: split },
              ],
            },
            {
              description: "job_type=target_validation needs the target and the split inputs.",
              anyOf: [
                { properties: { job_type: { type: "string", enum: ["target_id"] } } },
                {
                  required: ["job_type", "target", ...split],
                  properties: { job_type: { type: "string", enum: ["target_validation"] } },
                },
              ],
            },
          ],
        },
        encoding: { degs: { contentType: "application/json" } },
      },
    },
  };
}

/** Links from a 202 to the operations that read what it created (OpenAPI 3 runtime expressions). */
const LINKS: Record<string, Record<string, { operationId: string; parameters: Record<string, string> }>> = {
  createPrediction: Object.fromEntries(
    [
      ["GetPrediction", "getPrediction"],
      ["GetMappedDegs", "getMappedDegs"],
      ["GetDegsImpacted", "getDegsImpacted"],
      ["GetCausalPaths", "getCausalPaths"],
      ["GetIntermediaryProteins", "getIntermediaryProteins"],
      ["GetCausalGraph", "getCausalGraph"],
      ["GetPredictionTargets", "getPredictionTargets"],
      ["ListCausalAnalyses", "listCausalAnalyses"],
    ].map(([name, operationId]) => [
      name!,
      { operationId: operationId!, parameters: { prediction_id: "$response.body#/prediction_id" } },
    ]),
  ),
  createCausalAnalysis: {
    GetCausalAnalysis: {
      operationId: "getCausalAnalysis",
      parameters: { causal_analysis_id: "$response.body#/causal_analysis_id" },
    },
    GetCausalAnalysisGraph: {
      operationId: "getCausalAnalysisGraph",
      parameters: { causal_analysis_id: "$response.body#/causal_analysis_id" },
    },
  },
};

function derivedOperationId(method: string, path: string): string {
  const words = path
    .split("/")
    .filter((s) => s !== "" && !/^v\d+$/.test(s)) // the path's API version segment
    .map((s) => s.replace(/[{}]/g, ""))
    .flatMap((s) => s.split(/[-_]/));
  return method + words.map((w) => w.charAt(0).toUpperCase() + w.slice(1)).join("");
}

/** A string without a NUL character (JSON Schema `pattern`, ECMA-262 syntax). */
export const NO_NUL_PATTERN = "^[^\\u0000]*$";

/** Adds NO_NUL_PATTERN to a free-text string schema (no pattern, format, enum or const of its own). */
function declareNoNul(schema: unknown): void {
  if (!schema || typeof schema !== "object") return;
  const s = schema as Json;
  for (const key of ["anyOf", "oneOf", "allOf"])
    if (Array.isArray(s[key])) for (const branch of s[key] as unknown[]) declareNoNul(branch);
  const free =
    s.pattern === undefined && s.format === undefined && s.enum === undefined && s.const === undefined;
  if (s.type === "string" && free) s.pattern = NO_NUL_PATTERN;
}

function operations(paths: Paths): [string, string, Operation][] {
  return Object.entries(paths).flatMap(([path, item]) =>
    Object.entries(item)
      .filter(([m]) => METHODS.includes(m))
      .map(([m, op]) => [path, m, op] as [string, string, Operation]),
  );
}

/** Every `$ref` to a component schema inside a value. */
function refsIn(value: unknown, out: Set<string>): Set<string> {
  if (Array.isArray(value)) for (const v of value) refsIn(v, out);
  else if (value && typeof value === "object") {
    for (const [k, v] of Object.entries(value)) {
      if (k === "$ref" && typeof v === "string" && v.startsWith(REF_PREFIX))
        out.add(v.slice(REF_PREFIX.length));
      else refsIn(v, out);
    }
  }
  return out;
}

function rewriteRefs<T>(value: T, rename: Map<string, string>): T {
  return JSON.parse(JSON.stringify(value), (k, v: unknown) =>
    k === "$ref" && typeof v === "string" && v.startsWith(REF_PREFIX)
      ? REF_PREFIX + (rename.get(v.slice(REF_PREFIX.length)) ?? v.slice(REF_PREFIX.length))
      : v,
  ) as T;
}

/** Keeps the referenced components only, one per schema (see the module comment). */
function pruneComponents(doc: Json): Json {
  const components = (doc.components ?? {}) as Json;
  const schemas = (components.schemas ?? {}) as Record<string, Json>;
  const reachable = (roots: unknown): Set<string> => {
    const seen = new Set<string>();
    const queue = [...refsIn(roots, new Set())];
    while (queue.length > 0) {
      const name = queue.pop()!;
      if (seen.has(name)) continue;
      seen.add(name);
      queue.push(...refsIn(schemas[name], new Set()));
    }
    return seen;
  };
  const used = reachable(doc.paths);
  const rename = new Map<string, string>();
  // Nested twins make equality depend on earlier renames: repeat until nothing changes.
  for (let changed = true; changed;) {
    changed = false;
    for (const name of used) {
      if (!name.endsWith("Input") || rename.has(name)) continue;
      const plain = name.slice(0, -"Input".length);
      const twin = schemas[plain];
      const same =
        twin !== undefined &&
        JSON.stringify(rewriteRefs(twin, rename)) === JSON.stringify(rewriteRefs(schemas[name], rename));
      if (!used.has(plain) || same) {
        rename.set(name, plain);
        changed = true;
      }
    }
  }
  // A renamed input component may itself reference twins: rewrite inside, then recompute.
  const renamedSchemas: Record<string, Json> = {};
  for (const name of used) {
    const target = rename.get(name) ?? name;
    if (rename.has(name) && used.has(target)) continue; // identical twin: the plain one stays
    renamedSchemas[target] = rewriteRefs(schemas[name]!, rename);
  }
  const paths = rewriteRefs(doc.paths, rename);
  const finalUsed = reachable(paths);
  return {
    ...doc,
    paths,
    components: {
      ...components,
      schemas: Object.fromEntries(
        Object.entries(renamedSchemas)
          .filter(([n]) => finalUsed.has(n))
          .sort(([a], [b]) => a.localeCompare(b)),
      ),
    },
  };
}

/** Applies every finishing touch to the document @fastify/swagger built. */
export function finishDocument(input: Json): Json {
  const paths = input.paths as Paths;
  for (const [path, method, op] of operations(paths)) {
    const key = `${method.toUpperCase()} ${path}`;
    op.operationId = OPERATION_IDS[key] ?? derivedOperationId(method, path);
    if (Array.isArray(op.parameters)) for (const p of op.parameters as Json[]) declareNoNul(p.schema);
    if (key === "POST /v1/predictions")
      op.requestBody = predictionCreateBody(`${REF_PREFIX}PredictionCreateFormInput`);
    const responses = op.responses;
    for (const [status, response] of Object.entries(responses)) {
      if (
        STATUS_TEXT[status] &&
        (response.description === undefined || response.description === "Default Response")
      )
        response.description = STATUS_TEXT[status];
    }
    responses["400"] ??= jsonError("400");
    if (method === "post") responses["413"] ??= jsonError("413");
    if (path.includes("{")) responses["404"] ??= jsonError("404");
    const forbidden = (responses["403"] ??= { description: STATUS_TEXT["403"], content: {} });
    forbidden.description = STATUS_TEXT["403"];
    forbidden.content = { ...(forbidden.content as Json), ...edgeBlock };
    const links = op.operationId ? LINKS[op.operationId] : undefined;
    if (links) {
      const created = responses["202"];
      if (created) created.links = links;
    }
  }
  const doc = pruneComponents(input);
  const components = doc.components as Json;
  components.responses = {
    MethodNotAllowed: {
      description:
        "A method the path does not declare; the Allow header lists the declared ones " +
        "(X-Service-Error-Code: method_not_allowed). Answered on every path of this document.",
      headers: { Allow: { schema: { type: "string" }, description: "the path's methods" } },
      content: { "application/json": { schema: errorRef } },
    },
  };
  return doc;
}
