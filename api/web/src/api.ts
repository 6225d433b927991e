/**
 * The web app's client of the API, typed and validated with the API's own zod schemas. It keeps
 * the contract's rules like the SDK (api/src/client): every request passes a budget that stays
 * under the edge limit, GET requests are retried after rate_limited and edge blocks, POST never.
 * Refusals become CausewayErrors whose message is the service's; `explain` turns them into a
 * sentence with when to retry.
 */
import type { z } from "zod";
import { CausewayError } from "@causeway/api/client/errors";
import { backoffMs, RequestBudget, retryAfterMs } from "@causeway/api/client/pacing";
import {
  CausalAnalysisListResponse,
  CausalAnalysisStatusResponse,
  CreateCausalAnalysisResponse,
  QuotaResponse,
} from "@causeway/api/schemas/causal.ts";
import {
  CausalPathsResponse,
  DegsImpactedResponse,
  IntermediaryProteinsResponse,
  PredictResponse,
  PredictionStatusResponse,
  PredictionsListResponse,
} from "@causeway/api/schemas/predictions.ts";
import { ResolveGenesResponse } from "@causeway/api/schemas/genes.ts";
import { TargetsPage } from "@causeway/api/schemas/targets.ts";
import { session } from "./session.ts";

export { CausewayError };
export type PredictionStatus = z.infer<typeof PredictionStatusResponse>;
export type PredictionsPage = z.infer<typeof PredictionsListResponse>;
export type TargetsPageT = z.infer<typeof TargetsPage>;
export type Quota = z.infer<typeof QuotaResponse>;
export type CausalPaths = z.infer<typeof CausalPathsResponse>;
export type CausalAnalysisStatus = z.infer<typeof CausalAnalysisStatusResponse>;

export type GenesResolve = z.infer<typeof ResolveGenesResponse>;

type Query = Record<string, string | number | boolean | undefined>;

// The page itself and its two bundle files count against the same edge limit (30 a minute).
const budget = new RequestBudget(26, 60_000);
const MAX_RETRIES = 4;

const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));

function url(path: string, query: Query = {}): string {
  const u = new URL(path, location.origin);
  for (const [k, v] of Object.entries(query))
    if (v !== undefined && v !== "") u.searchParams.set(k, String(v));
  return u.pathname + u.search;
}

async function errorOf(res: Response): Promise<CausewayError> {
  const code = res.headers.get("x-service-error-code");
  const retry = retryAfterMs(res.headers.get("retry-after"), Date.now());
  const type = res.headers.get("content-type") ?? "";
  if (res.status === 403 && code === null && type.includes("text/html")) {
    await res.body?.cancel();
    return new CausewayError("edge_blocked", "Too many requests from this address.", 403, retry);
  }
  const body: unknown = type.includes("json") ? await res.json().catch(() => undefined) : undefined;
  let message = `${res.status} ${res.statusText}`.trim();
  if (body && typeof body === "object" && "detail" in body) {
    const detail = (body as { detail: unknown }).detail;
    if (typeof detail === "string") message = detail;
    else if (Array.isArray(detail))
      message = detail
        .map((d: { loc?: unknown[]; msg?: string }) => `${(d.loc ?? []).slice(1).join(".")}: ${d.msg ?? ""}`)
        .join("; ");
  }
  return new CausewayError(
    code ?? (res.status === 422 ? "validation_error" : "http_error"),
    message,
    res.status,
    retry,
  );
}

/** Sends one request with the budget and the retry rules; a 2xx answer or a CausewayError. */
export async function send(
  method: "GET" | "POST",
  path: string,
  init: { body?: BodyInit; json?: unknown; signal?: AbortSignal; accept?: string; auth?: boolean } = {},
): Promise<Response> {
  const headers: Record<string, string> = { accept: init.accept ?? "application/json" };
  const key = session.key();
  if (init.auth !== false && key) headers["x-api-key"] = key;
  let body = init.body;
  if (init.json !== undefined) {
    headers["content-type"] = "application/json";
    body = JSON.stringify(init.json);
  }
  for (let attempt = 0; ; attempt++) {
    await budget.take();
    let res: Response;
    try {
      res = await fetch(path, {
        method,
        headers,
        body: body ?? null,
        signal: init.signal ?? null,
        credentials: "omit",
      });
    } catch (err) {
      if (init.signal?.aborted) throw err;
      throw new CausewayError("network_error", "The service did not answer.", 0);
    }
    if (res.ok) return res;
    const error = await errorOf(res);
    if (error.code === "unauthorized" && init.auth !== false)
      window.dispatchEvent(new Event("causeway:unauthorized"));
    const retryable = error.code === "rate_limited" || error.code === "edge_blocked";
    if (method !== "GET" || !retryable || attempt >= MAX_RETRIES) throw error;
    await sleep(error.retryAfterMs ?? backoffMs(attempt, 2000, 30_000, Math.random));
  }
}

async function getJson<S extends z.ZodType>(
  schema: S,
  path: string,
  query: Query = {},
  signal?: AbortSignal,
): Promise<z.infer<S>> {
  const res = await send("GET", url(path, query), signal ? { signal } : {});
  const parsed = schema.safeParse(await res.json());
  if (!parsed.success)
    throw new CausewayError("invalid_response", `Unexpected answer from ${path}.`, res.status);
  return parsed.data;
}

const enc = encodeURIComponent;

export const api = {
  listPredictions: (cursor?: string) =>
    getJson(PredictionsListResponse, "/v1/predictions", { limit: 20, cursor }),
  /** The status record without the preview rows: the summary and the download links only. */
  prediction: (id: string) =>
    getJson(PredictionStatusResponse, `/v1/predictions/${enc(id)}`, {
      max_rows: 1,
      max_source_influence_rows: 1,
      max_columns: 1,
    }),
  targets: (id: string, query: Query, signal?: AbortSignal) =>
    getJson(TargetsPage, `/v1/predictions/${enc(id)}/targets`, query, signal),
  quota: () => getJson(QuotaResponse, "/v1/usage/predictions/quota"),
  degsImpacted: (id: string) => getJson(DegsImpactedResponse, `/v1/predictions/${enc(id)}/degs-impacted`),
  causalPaths: (id: string) => getJson(CausalPathsResponse, `/v1/predictions/${enc(id)}/causal-paths`),
  intermediaries: (id: string, topN: number) =>
    getJson(IntermediaryProteinsResponse, `/v1/predictions/${enc(id)}/intermediary-proteins`, {
      top_n_degs: topN,
    }),
  async causalGraphPng(id: string, topN: number): Promise<Blob> {
    const res = await send("GET", url(`/v1/predictions/${enc(id)}/causal-graph`, { top_n_degs: topN }), {
      accept: "image/png",
    });
    return res.blob();
  },
  causalAnalyses: (predictionId: string) =>
    getJson(CausalAnalysisListResponse, "/v1/causal-analysis", { prediction_id: predictionId }),
  causalAnalysis: (id: string) => getJson(CausalAnalysisStatusResponse, `/v1/causal-analysis/${enc(id)}`),
  async createCausalAnalysis(predictionId: string, target: string) {
    const res = await send("POST", "/v1/causal-analysis", { json: { prediction_id: predictionId, target } });
    return CreateCausalAnalysisResponse.parse(await res.json());
  },
  async createPrediction(form: FormData) {
    const res = await send("POST", "/v1/predictions", { body: form });
    return PredictResponse.parse(await res.json());
  },
  /** POST /v1/genes/resolve; null on a server without the route (the page then shows the count only). */
  async resolveGenes(genes: string[], signal?: AbortSignal): Promise<GenesResolve | null> {
    try {
      const res = await send("POST", "/v1/genes/resolve", { json: { genes }, ...(signal ? { signal } : {}) });
      const parsed = ResolveGenesResponse.safeParse(await res.json());
      return parsed.success ? parsed.data : null;
    } catch (err) {
      if (err instanceof CausewayError && (err.status === 404 || err.status === 405)) return null;
      throw err;
    }
  },
  /** Checks a key before keeping it: the quota route answers 401 for a wrong one. */
  async checkKey(key: string): Promise<void> {
    await budget.take();
    const res = await fetch("/v1/usage/predictions/quota", {
      headers: { "x-api-key": key, accept: "application/json" },
      credentials: "omit",
    });
    if (!res.ok) throw await errorOf(res);
  },
  /**
   * An artifact by its download link. Links of the filesystem store (/files/<token>) are
   * fetched from this origin whatever host they name (the page may be opened as localhost
   * while links say 127.0.0.1); S3 links are fetched as they are.
   */
  async artifact(link: string): Promise<Response> {
    return send("GET", sameOriginLink(link), { auth: false, accept: "*/*" });
  },
};

/** A download link made relative when it is one of this service's own /files/ links. */
export function sameOriginLink(link: string): string {
  const u = new URL(link, location.origin);
  return u.pathname.startsWith("/files/") ? u.pathname + u.search : u.toString();
}

/** A prediction's events, read from the SSE route with fetch (EventSource cannot send the key). */
export async function* predictionEvents(
  id: string,
  signal: AbortSignal,
): AsyncGenerator<{
  event: string;
  data: {
    status: string;
    processing_step?: string | null;
    progress_pct?: number | null;
    error_message?: string | null;
  };
}> {
  const res = await send("GET", `/v1/predictions/${enc(id)}/events`, { signal, accept: "text/event-stream" });
  if (!res.body) return;
  const reader = res.body.pipeThrough(new TextDecoderStream()).getReader();
  let buffer = "";
  for (;;) {
    const { value, done } = await reader.read();
    if (done) return;
    buffer += value.replace(/\r\n?/g, "\n");
    for (let end = buffer.indexOf("\n\n"); end !== -1; end = buffer.indexOf("\n\n")) {
      const frame = buffer.slice(0, end);
      buffer = buffer.slice(end + 2);
      let event = "message";
      const data: string[] = [];
      for (const line of frame.split("\n")) {
        if (line.startsWith("event:")) event = line.slice(6).trim();
        else if (line.startsWith("data:")) data.push(line.slice(5).trim());
      }
      if (data.length === 0) continue;
      try {
        yield { event, data: JSON.parse(data.join("\n")) };
      } catch {
        // a malformed frame is skipped
      }
    }
  }
}

/** A refusal as a sentence a person can act on, with when to retry. */
export function explain(err: unknown): string {
  if (!(err instanceof CausewayError)) return "Something went wrong in the page. Reload it and try again.";
  const when =
    err.retryAfterMs !== null
      ? ` Try again in ${Math.max(1, Math.ceil(err.retryAfterMs / 1000))} seconds.`
      : "";
  switch (err.code) {
    case "unauthorized":
      return "The service did not accept this API key. Check it, or ask your administrator for a new one.";
    case "rate_limited":
      return `You have sent too many predictions in a short time.${when || " Try again in a minute."}`;
    case "inflight_limit":
      return "Another prediction of this account is still running. Submit this one when it has finished.";
    case "external_prediction_quota_exceeded":
      return "This account has used all of its predictions. Ask your administrator to raise the quota.";
    case "job_type_not_allowed":
      return "This account may only submit target validation (a named target with the split upload).";
    case "edge_blocked":
      return `Too many requests came from this address in the last minute.${when || " Wait a minute and try again."}`;
    case "payload_too_large":
      return `The upload is too large: ${err.message}`;
    case "service_unavailable":
      return `The service is busy or restarting.${when || " Try again in a few seconds."}`;
    case "network_error":
      return "The service did not answer. Check that it is running and try again.";
    case "not_found":
      return "There is no such prediction in this account (or its results are not ready).";
    default:
      return err.message;
  }
}
