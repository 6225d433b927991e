/**
 * The typed SDK: one method per operation of the API, on `fetch`, with the request and
 * response types inferred from the zod schemas the server validates and documents with.
 * Answers are validated at this edge. The retry rules are the contract's (service-spec §7):
 * GET requests are retried on `rate_limited` and on edge blocks (403 without an error code),
 * after Retry-After or a jittered backoff; a POST is never retried, because a repeat creates a
 * second job. Every request also passes a budget that keeps the client under the edge limit.
 */
import { z } from "zod";
import type { CreateCausalAnalysisRequest } from "../schemas/causal.ts";
import {
  CausalAnalysisListResponse,
  CausalAnalysisStatusResponse,
  CreateCausalAnalysisResponse,
  QuotaResponse,
} from "../schemas/causal.ts";
import {
  CausalPathsResponse,
  DegsImpactedResponse,
  IntermediaryProteinsResponse,
  MappedDegsResponse,
  PredictResponse,
  PredictionCreateForm,
  PredictionStatusResponse,
  PredictionsListResponse,
} from "../schemas/predictions.ts";
import { ResolveGenesResponse } from "../schemas/genes.ts";
import { TargetsPage } from "../schemas/targets.ts";
import type { PredictionGraphExportQuery } from "../schemas/graph-export.ts";
import { CausewayError, detailMessage } from "./errors.ts";
import { backoffMs, realSleep, RequestBudget, retryAfterMs, type Sleep } from "./pacing.ts";

export type PredictionStatus = z.infer<typeof PredictionStatusResponse>;
export type PredictResult = z.infer<typeof PredictResponse>;
export type PredictionsPage = z.infer<typeof PredictionsListResponse>;
export type MappedDegs = z.infer<typeof MappedDegsResponse>;
export type DegsImpacted = z.infer<typeof DegsImpactedResponse>;
export type CausalPaths = z.infer<typeof CausalPathsResponse>;
export type IntermediaryProteins = z.infer<typeof IntermediaryProteinsResponse>;
export type CausalAnalysisStatus = z.infer<typeof CausalAnalysisStatusResponse>;
export type CausalAnalysisCreated = z.infer<typeof CreateCausalAnalysisResponse>;
export type CausalAnalysisList = z.infer<typeof CausalAnalysisListResponse>;
export type CausalAnalysisRequest = z.input<typeof CreateCausalAnalysisRequest>;
export type Quota = z.infer<typeof QuotaResponse>;
export type ResolvedGenes = z.infer<typeof ResolveGenesResponse>;
export type TargetsPageResult = z.infer<typeof TargetsPage>;
/** A network file format of the causal-graph exports. */
export type GraphExportFormat = z.infer<typeof PredictionGraphExportQuery>["format"];

const FILE_FIELDS = ["dataset", "dataset_control", "dataset_pert"] as const;
/** The options of a submission: every text field of the form (service-spec §4.1). */
const SubmissionOptions = PredictionCreateForm.omit({
  dataset: true,
  dataset_control: true,
  dataset_pert: true,
});
export type SubmissionOptions = z.input<typeof SubmissionOptions>;

/** A prediction submission: the merged file or the split pair with its DEGs, plus options. */
export type PredictionSubmission = Omit<SubmissionOptions, "degs"> &
  ({ dataset: Blob } | { dataset_control: Blob; dataset_pert: Blob; degs: string[] });

/** The query of GET /v1/predictions/{id}/targets (service defaults for what is left out). */
export interface TargetsPageQuery {
  offset?: number;
  limit?: number;
  sort?: string;
  order?: "asc" | "desc";
  q?: string;
  tier?: string;
  direction?: string;
  fold_proxies?: boolean;
  result_set?: string;
}

export interface StatusQuery {
  max_rows?: number;
  max_source_influence_rows?: number;
  max_columns?: number;
  target?: string;
}

export interface ClientOptions {
  baseUrl: string;
  apiKey: string;
  fetch?: typeof fetch;
  /** Retries of a GET after rate_limited or an edge block (default 6). */
  maxRetries?: number;
  /** First backoff when no Retry-After is given (default 2 s; doubles up to maxBackoffMs). */
  baseBackoffMs?: number;
  maxBackoffMs?: number;
  /** Requests this client sends per minute at most (default 30: the service's edge limit). */
  requestsPerMinute?: number;
  sleep?: Sleep;
  random?: () => number;
  now?: () => number;
  /**
   * Called before the client pauses for the edge limit (its own request budget, or the
   * service's block) with the pause in milliseconds; the CLI says so on standard error.
   */
  onWait?: (ms: number, reason: "budget" | "edge_blocked" | "rate_limited") => void;
}

type Query = Record<string, string | number | boolean | undefined>;

export class CausewayClient {
  readonly baseUrl: string;
  readonly budget: RequestBudget;
  private readonly apiKey: string;
  private readonly fetchFn: typeof fetch;
  private readonly maxRetries: number;
  private readonly baseBackoffMs: number;
  private readonly maxBackoffMs: number;
  private readonly sleep: Sleep;
  private readonly random: () => number;
  private readonly now: () => number;
  private readonly onWait: ClientOptions["onWait"];

  constructor(options: ClientOptions) {
    this.baseUrl = options.baseUrl.replace(/\/+$/, "");
    this.apiKey = options.apiKey;
    // Called through a wrapper: a browser's fetch refuses to run with this client as `this`.
    this.fetchFn = options.fetch ?? ((input, init) => fetch(input, init));
    this.maxRetries = options.maxRetries ?? 6;
    this.baseBackoffMs = options.baseBackoffMs ?? 2000;
    this.maxBackoffMs = options.maxBackoffMs ?? 60_000;
    this.sleep = options.sleep ?? realSleep;
    this.random = options.random ?? Math.random;
    this.now = options.now ?? Date.now;
    this.onWait = options.onWait;
    this.budget = new RequestBudget(options.requestsPerMinute ?? 30, 60_000, this.now, (ms) => {
      this.onWait?.(ms, "budget");
      return this.sleep(ms);
    });
  }

  // ── predictions ─────────────────────────────────────────────────────────────────────────

  /** POST /v1/predictions. Never retried: a repeat would create a second prediction. */
  async createPrediction(submission: PredictionSubmission): Promise<PredictResult> {
    const form = new FormData();
    const { degs, ...rest } = submission as SubmissionOptions &
      Partial<Record<(typeof FILE_FIELDS)[number], Blob>>;
    const checked = SubmissionOptions.safeParse({ ...withoutFiles(rest), degs });
    if (!checked.success) {
      const items = checked.error.issues.map((i) => `${i.path.join(".")}: ${i.message}`).join("; ");
      throw new CausewayError("invalid_input", items, 0);
    }
    for (const field of FILE_FIELDS) {
      const file = rest[field];
      // A File keeps its own name (the service's default label is made from it); a Blob is named
      // after its field.
      if (file) form.set(field, file, file instanceof File && file.name ? file.name : `${field}.h5ad`);
    }
    if (degs !== undefined) form.set("degs", JSON.stringify(degs));
    for (const [name, value] of Object.entries(withoutFiles(rest)))
      if (value !== undefined && value !== null) form.set(name, String(value));
    return this.request("POST", "/v1/predictions", PredictResponse, { body: form });
  }

  listPredictions(query: { limit?: number; cursor?: string } = {}): Promise<PredictionsPage> {
    return this.request("GET", "/v1/predictions", PredictionsListResponse, { query });
  }

  /** Every prediction of the account, newest first, page by page. */
  async *allPredictions(pageSize = 100): AsyncGenerator<PredictionStatus> {
    let cursor: string | undefined;
    do {
      const page = await this.listPredictions({ limit: pageSize, cursor });
      yield* page.predictions;
      cursor = page.next_cursor ?? undefined;
    } while (cursor !== undefined);
  }

  getPrediction(id: string, query: StatusQuery = {}): Promise<PredictionStatus> {
    return this.request("GET", `/v1/predictions/${enc(id)}`, PredictionStatusResponse, {
      query: { ...query },
    });
  }

  /** A page of the ranked target table, sorted, searched and filtered by the service. */
  getTargets(id: string, query: TargetsPageQuery = {}): Promise<TargetsPageResult> {
    return this.request("GET", `/v1/predictions/${enc(id)}/targets`, TargetsPage, { query: { ...query } });
  }

  getMappedDegs(id: string): Promise<MappedDegs> {
    return this.request("GET", `/v1/predictions/${enc(id)}/mapped-degs`, MappedDegsResponse);
  }

  getDegsImpacted(id: string): Promise<DegsImpacted> {
    return this.request("GET", `/v1/predictions/${enc(id)}/degs-impacted`, DegsImpactedResponse);
  }

  getCausalPaths(id: string): Promise<CausalPaths> {
    return this.request("GET", `/v1/predictions/${enc(id)}/causal-paths`, CausalPathsResponse);
  }

  getIntermediaryProteins(
    id: string,
    query: { top_n_degs: number; deg?: string },
  ): Promise<IntermediaryProteins> {
    return this.request(
      "GET",
      `/v1/predictions/${enc(id)}/intermediary-proteins`,
      IntermediaryProteinsResponse,
      {
        query,
      },
    );
  }

  /** The causal graph of a completed target_validation prediction, as PNG bytes. */
  getCausalGraph(id: string, query: { top_n_degs: number; dpi?: number }): Promise<Uint8Array> {
    return this.bytes(`/v1/predictions/${enc(id)}/causal-graph`, query);
  }

  /**
   * The same graph as a network file for Cytoscape and other tools: CX2 (default), GraphML or
   * SIF text, with each node's molecule (protein or RNA) and each edge's sign as attributes.
   */
  async getCausalGraphExport(
    id: string,
    query: { top_n_degs: number; format?: GraphExportFormat },
  ): Promise<string> {
    return decodeText(await this.bytes(`/v1/predictions/${enc(id)}/causal-graph/export`, query));
  }

  // ── causal analyses ─────────────────────────────────────────────────────────────────────

  createCausalAnalysis(body: CausalAnalysisRequest): Promise<CausalAnalysisCreated> {
    return this.request("POST", "/v1/causal-analysis", CreateCausalAnalysisResponse, { json: body });
  }

  listCausalAnalyses(predictionId: string): Promise<CausalAnalysisList> {
    return this.request("GET", "/v1/causal-analysis", CausalAnalysisListResponse, {
      query: { prediction_id: predictionId },
    });
  }

  getCausalAnalysis(id: string): Promise<CausalAnalysisStatus> {
    return this.request("GET", `/v1/causal-analysis/${enc(id)}`, CausalAnalysisStatusResponse);
  }

  getCausalAnalysisGraph(id: string): Promise<Uint8Array> {
    return this.bytes(`/v1/causal-analysis/${enc(id)}/graph`, {});
  }

  /** A completed causal analysis's graph as a network file (see getCausalGraphExport). */
  async getCausalAnalysisGraphExport(
    id: string,
    query: { format?: GraphExportFormat } = {},
  ): Promise<string> {
    return decodeText(await this.bytes(`/v1/causal-analysis/${enc(id)}/graph/export`, query));
  }

  // ── genes ───────────────────────────────────────────────────────────────────────────────

  /** POST /v1/genes/resolve: how the service reads a gene list (symbols, Ensembl ids, mouse symbols). */
  resolveGenes(genes: string[], species: "human" | "mouse" = "human"): Promise<ResolvedGenes> {
    return this.request("POST", "/v1/genes/resolve", ResolveGenesResponse, { json: { genes, species } });
  }

  getQuota(): Promise<Quota> {
    return this.request("GET", "/v1/usage/predictions/quota", QuotaResponse);
  }

  /**
   * Downloads a presigned artifact link. The API key is sent only to the service's own origin,
   * never to object storage. Retried like any GET.
   */
  async download(url: string): Promise<Response> {
    const sameOrigin = new URL(url, this.baseUrl).origin === new URL(this.baseUrl).origin;
    return this.send("GET", new URL(url, this.baseUrl).toString(), {
      headers: sameOrigin ? { "x-api-key": this.apiKey } : {},
    });
  }

  /**
   * The prediction's Server-Sent Events (GET /v1/predictions/{id}/events): its current state,
   * every change, then the terminal event. One request against the limits however long it runs.
   */
  async *predictionEvents(id: string, signal?: AbortSignal): AsyncGenerator<PredictionEvent> {
    const res = await this.send("GET", this.url(`/v1/predictions/${enc(id)}/events`, {}), {
      headers: { "x-api-key": this.apiKey, accept: "text/event-stream" },
      signal,
    });
    if (!res.body) return;
    yield* parseEventStream(res.body);
  }

  // ── transport ───────────────────────────────────────────────────────────────────────────

  private async bytes(path: string, query: Query): Promise<Uint8Array> {
    const res = await this.send("GET", this.url(path, query), { headers: { "x-api-key": this.apiKey } });
    return new Uint8Array(await res.arrayBuffer());
  }

  private async request<S extends z.ZodType>(
    method: "GET" | "POST",
    path: string,
    schema: S,
    options: { query?: Query; body?: FormData; json?: unknown } = {},
  ): Promise<z.infer<S>> {
    const headers: Record<string, string> = { "x-api-key": this.apiKey, accept: "application/json" };
    let body: FormData | string | undefined = options.body;
    if (options.json !== undefined) {
      headers["content-type"] = "application/json";
      body = JSON.stringify(options.json);
    }
    const res = await this.send(method, this.url(path, options.query ?? {}), { headers, body });
    const json: unknown = await res.json().catch(() => undefined);
    const parsed = schema.safeParse(json);
    if (!parsed.success)
      throw new CausewayError("invalid_response", `unexpected answer from ${method} ${path}`, res.status);
    return parsed.data;
  }

  /** Sends with the budget and the retry rules; returns a 2xx answer or throws CausewayError. */
  private async send(
    method: "GET" | "POST",
    url: string,
    init: { headers: Record<string, string>; body?: FormData | string; signal?: AbortSignal },
  ): Promise<Response> {
    for (let attempt = 0; ; attempt++) {
      await this.budget.take();
      let res: Response;
      try {
        res = await this.fetchFn(url, {
          method,
          headers: init.headers,
          body: init.body,
          signal: init.signal,
        });
      } catch (err) {
        const cause = err instanceof Error && err.cause instanceof Error ? `: ${err.cause.message}` : "";
        throw new CausewayError("network_error", `cannot reach ${new URL(url).origin}${cause}`, 0);
      }
      if (res.ok) return res;
      const error = await errorOf(res, this.now());
      const retryable = error.code === "rate_limited" || error.code === "edge_blocked";
      if (method !== "GET" || !retryable || attempt >= this.maxRetries) throw error;
      const pause =
        error.retryAfterMs ?? backoffMs(attempt, this.baseBackoffMs, this.maxBackoffMs, this.random);
      this.onWait?.(pause, error.code === "rate_limited" ? "rate_limited" : "edge_blocked");
      await this.sleep(pause);
    }
  }

  private url(path: string, query: Query): string {
    const u = new URL(this.baseUrl + path);
    for (const [k, v] of Object.entries(query)) if (v !== undefined) u.searchParams.set(k, String(v));
    return u.toString();
  }
}

const enc = encodeURIComponent;
const decodeText = (bytes: Uint8Array): string => new TextDecoder().decode(bytes);

/** One event of a prediction's stream: `status`, or the terminal `completed` / `failed`. */
export interface PredictionEvent {
  event: string;
  id: string | null;
  data: {
    status: string;
    processing_step?: string | null;
    progress_pct?: number | null;
    error_code?: string | null;
    error_message?: string | null;
  };
}

/** Reads text/event-stream frames (blank-line separated; comment lines are heartbeats). */
async function* parseEventStream(body: ReadableStream<Uint8Array>): AsyncGenerator<PredictionEvent> {
  const decoder = new TextDecoder();
  let buffer = "";
  for await (const chunk of body) {
    buffer += decoder.decode(chunk, { stream: true }).replace(/\r\n?/g, "\n");
    for (let end = buffer.indexOf("\n\n"); end !== -1; end = buffer.indexOf("\n\n")) {
      const frame = buffer.slice(0, end);
      buffer = buffer.slice(end + 2);
      let event = "message";
      let id: string | null = null;
      const data: string[] = [];
      for (const line of frame.split("\n")) {
        if (line.startsWith(":")) continue;
        const colon = line.indexOf(":");
        const field = colon === -1 ? line : line.slice(0, colon);
        const value = colon === -1 ? "" : line.slice(colon + 1).replace(/^ /, "");
        if (field === "event") event = value;
        else if (field === "id") id = value;
        else if (field === "data") data.push(value);
      }
      if (data.length === 0) continue;
      const parsed = PredictionEventData.safeParse(JSON.parse(data.join("\n")));
      if (parsed.success) yield { event, id, data: parsed.data };
    }
  }
}

const PredictionEventData = z.object({
  status: z.string(),
  processing_step: z.string().nullable().optional(),
  progress_pct: z.number().nullable().optional(),
  error_code: z.string().nullable().optional(),
  error_message: z.string().nullable().optional(),
});

function withoutFiles<T extends object>(o: T): Omit<T, (typeof FILE_FIELDS)[number]> {
  const copy: Record<string, unknown> = { ...(o as Record<string, unknown>) };
  for (const f of FILE_FIELDS) delete copy[f];
  return copy as Omit<T, (typeof FILE_FIELDS)[number]>;
}

/** The CausewayError an error answer stands for. */
async function errorOf(res: Response, now: number): Promise<CausewayError> {
  const code = res.headers.get("x-service-error-code");
  const retryAfter = retryAfterMs(res.headers.get("retry-after"), now);
  const type = res.headers.get("content-type") ?? "";
  if (res.status === 403 && code === null && type.includes("text/html")) {
    await res.body?.cancel();
    return new CausewayError(
      "edge_blocked",
      "too many requests from this address (edge limit)",
      403,
      retryAfter,
    );
  }
  const body: unknown = type.includes("json") ? await res.json().catch(() => undefined) : await res.text();
  const message = detailMessage(body) ?? `${res.status} ${res.statusText}`.trim();
  return new CausewayError(code ?? "http_error", message, res.status, retryAfter);
}
