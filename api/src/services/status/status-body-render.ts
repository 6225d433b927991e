/**
 * The status body of a completed prediction as bytes: the same presenter and the same response
 * schema the route uses, so the bytes are exactly what the route would have sent. The matrix
 * cells (most of a full preview: over a million numbers) are formatted straight to JSON text
 * and spliced in, instead of being built as numbers, checked by the schema one by one and
 * stringified: that took about two thirds of a full render. Runs in the status-body worker.
 */
import { createHash, randomUUID } from "node:crypto";
import type { Readable } from "node:stream";
import { ObjectNotFound, type ObjectStore } from "@causeway/runner/storage";
import type { Account } from "../../db/accounts.ts";
import type { PredictionRow } from "../../db/jobs.ts";
import { z } from "zod";
import { ARTIFACTS } from "@causeway/contract";
import type { ResultFileMap } from "../../db/jobs.ts";
import {
  PredictionResultRow,
  PredictionStatusResponse,
  SourceInfluenceMatrixPreview,
  StatusQuery,
} from "../../schemas/predictions.ts";
import { readMatrixPreviewJson, readTsvHead, resultRows } from "./artifacts.ts";
import { presentPrediction, primaryPrefix } from "./present.ts";

export interface RenderInput {
  row: PredictionRow;
  tier: Account["tier"];
  /** Artifact bytes by object key: only what the presenter reads. */
  objects: Record<string, Uint8Array>;
  /** Preview sizes and target of a status read with non-default sizes; the defaults when absent. */
  sizes?: StatusSizes;
}

export interface StatusSizes {
  maxRows: number;
  maxSourceInfluenceRows: number;
  maxColumns: number;
  target: string | null;
}

export type Rendered =
  { ok: true; body: Uint8Array<ArrayBuffer>; etag: string } | { ok: false; message: string };

/** Serves the artifacts the main thread read; download links stay empty (they are signed per poll). */
export class PreloadedStore implements ObjectStore {
  private readonly objects: Record<string, Uint8Array>;
  constructor(objects: Record<string, Uint8Array>) {
    this.objects = objects;
  }
  private object(key: string): Buffer {
    const o = this.objects[key];
    if (!o) throw new ObjectNotFound(key);
    return Buffer.from(o.buffer, o.byteOffset, o.byteLength);
  }
  async get(key: string): Promise<Buffer> {
    return this.object(key);
  }
  async getRange(key: string, start: number, end: number): Promise<Buffer> {
    return this.object(key).subarray(start, end);
  }
  async presignGet(): Promise<string> {
    return "";
  }
  async exists(key: string): Promise<boolean> {
    return key in this.objects;
  }
  async put(_key: string, _body: Buffer | string | Readable): Promise<void> {
    throw new Error("read-only store");
  }
  async putFile(): Promise<void> {
    throw new Error("read-only store");
  }
  async getToFile(): Promise<void> {
    throw new Error("read-only store");
  }
  async delete(): Promise<void> {
    throw new Error("read-only store");
  }
  async deletePrefix(): Promise<void> {
    throw new Error("read-only store");
  }
  async ping(): Promise<void> {}
}

const DEFAULTS = StatusQuery.parse({});

/** The contract's default preview sizes. */
export const DEFAULT_SIZES = {
  maxRows: DEFAULTS.max_rows,
  maxSourceInfluenceRows: DEFAULTS.max_source_influence_rows,
  maxColumns: DEFAULTS.max_columns,
};

/**
 * The two large values of a status body as JSON text: `results` and `source_influence_matrix`
 * (null when the job has no such artifact), each with its SHA-256. They depend only on the
 * artifacts, the tier and the sizes, so they can be made while the job still runs (prepare).
 */
export interface Previews {
  results: Uint8Array | null;
  matrix: Uint8Array | null;
  digests: [string, string];
}

/** What the previews were made from: the artifacts' keys and digests, the tier, the prefix. */
export interface PreviewSource {
  tier: Account["tier"];
  prefix: string;
  /** Object key and SHA-256 of each artifact the previews read, by stable name. */
  inputs: Record<string, { key: string; digest: string } | null>;
}

const PREVIEW_INPUTS = [
  ARTIFACTS.targetScores,
  ARTIFACTS.sourceInfluenceMatrix,
  ARTIFACTS.sourceInfluenceIds,
] as const;

/** The source descriptor of previews made from `objects` (digests of what they read). */
export function previewSource(
  tier: Account["tier"],
  prefix: string,
  files: ResultFileMap | null,
  objects: Record<string, Uint8Array>,
): PreviewSource {
  const inputs: PreviewSource["inputs"] = {};
  for (const name of PREVIEW_INPUTS) {
    const key = files?.[prefix + name];
    const bytes = key ? objects[key] : undefined;
    inputs[name] =
      key && bytes ? { key, digest: createHash("sha256").update(bytes).digest("base64url") } : null;
  }
  return { tier, prefix, inputs };
}

function sameSource(a: PreviewSource, b: PreviewSource): boolean {
  return JSON.stringify(a) === JSON.stringify(b);
}

/** Previews made ahead of a job's completion (default sizes, primary result set ""), by prediction id. */
export class PreparedPreviews {
  private readonly entries = new Map<string, { source: PreviewSource; previews: Previews }>();
  /** A few at most: jobs finishing at about the same time. */
  private readonly max: number;
  /** Previews of a job that failed instead of completing are dropped after this. */
  private readonly ttlMs: number;

  constructor(max = 4, ttlMs = 10 * 60_000) {
    this.max = max;
    this.ttlMs = ttlMs;
  }

  /** Makes and keeps the previews of `files` (by stable name); whether it could. */
  async prepare(
    predictionId: string,
    tier: Account["tier"],
    files: ResultFileMap,
    objects: Record<string, Uint8Array>,
  ): Promise<boolean> {
    const previews = await renderPreviews(new PreloadedStore(objects), files, "", tier, DEFAULT_SIZES);
    if (typeof previews === "string") return false;
    const entry = { source: previewSource(tier, "", files, objects), previews };
    this.entries.delete(predictionId);
    this.entries.set(predictionId, entry);
    setTimeout(() => {
      if (this.entries.get(predictionId) === entry) this.entries.delete(predictionId);
    }, this.ttlMs).unref();
    for (const key of this.entries.keys()) {
      if (this.entries.size <= this.max) break;
      this.entries.delete(key);
    }
    return true;
  }

  /**
   * The prepared previews for this render (used once), if it is at the default sizes and reads
   * artifacts with the same keys and bytes as they were made from; else undefined.
   */
  take(req: RenderInput): Previews | undefined {
    const ready = this.entries.get(req.row.id);
    if (!ready || req.sizes !== undefined) return undefined;
    this.entries.delete(req.row.id);
    const source = previewSource(req.tier, primaryPrefix(req.row), req.row.result_files, req.objects);
    return sameSource(source, ready.source) ? ready.previews : undefined;
  }
}

/** The previews at `sizes` from the artifacts in `objects`. */
export async function renderPreviews(
  store: ObjectStore,
  files: ResultFileMap | null,
  prefix: string,
  tier: Account["tier"],
  sizes: { maxRows: number; maxSourceInfluenceRows: number; maxColumns: number },
): Promise<Previews | string> {
  const encoder = new TextEncoder();
  let results: Uint8Array | null = null;
  const tsv = await readTsvHead(store, files, prefix + ARTIFACTS.targetScores, sizes.maxRows);
  if (tsv !== null) {
    const rows = ResultRows.safeEncode(resultRows(tsv, sizes.maxRows, tier === "internal"));
    if (!rows.success) return `invalid status body: ${rows.error.message}`;
    results = encoder.encode(JSON.stringify(rows.data));
  }
  let matrix: Uint8Array | null = null;
  const read = await readMatrixPreviewJson(
    store,
    files,
    prefix + ARTIFACTS.sourceInfluenceMatrix,
    prefix + ARTIFACTS.sourceInfluenceIds,
    sizes.maxSourceInfluenceRows,
    sizes.maxColumns,
  );
  if (read) {
    const encoded = SourceInfluenceMatrixPreview.safeEncode(read.preview);
    if (!encoded.success) return `invalid status body: ${encoded.error.message}`;
    const spliced = splice(JSON.stringify({ ...encoded.data, data: MARKERS[0] }), [read.dataJson]);
    if (typeof spliced === "string") return spliced;
    matrix = spliced;
  }
  return { results, matrix, digests: [digestOf(results), digestOf(matrix)] };
}

const ResultRows = z.array(PredictionResultRow);

function digestOf(bytes: Uint8Array | null): string {
  return bytes ? createHash("sha256").update(bytes).digest("base64url") : "";
}

/**
 * Markers no field can hold (text fields refuse NUL; and each must be found exactly once),
 * standing for JSON text spliced in after JSON.stringify.
 */
const MARKERS = [`\u0000${randomUUID()}`, `\u0000${randomUUID()}`] as const;

/** `json` with the quoted MARKERS[i] replaced by `parts[i]`; an error message when one is not found once. */
function splice(json: string, parts: Uint8Array[]): Uint8Array<ArrayBuffer> | string {
  const cuts: { at: number; end: number; part: Uint8Array }[] = [];
  parts.forEach((part, i) => {
    const quoted = JSON.stringify(MARKERS[i]);
    const at = json.indexOf(quoted);
    if (at >= 0 && json.indexOf(quoted, at + 1) < 0) cuts.push({ at, end: at + quoted.length, part });
  });
  if (cuts.length !== parts.length) return "status body marker not found once";
  cuts.sort((a, b) => a.at - b.at);
  const texts: string[] = [];
  let from = 0;
  for (const c of cuts) {
    texts.push(json.slice(from, c.at));
    from = c.end;
  }
  texts.push(json.slice(from));
  let size = 0;
  for (const t of texts) size += Buffer.byteLength(t);
  for (const c of cuts) size += c.part.length;
  // Its own ArrayBuffer (never Buffer's shared pool): safe to transfer.
  const out = new Uint8Array(size);
  const encoder = new TextEncoder();
  let n = 0;
  texts.forEach((t, i) => {
    n += encoder.encodeInto(t, out.subarray(n)).written;
    const c = cuts[i];
    if (c) {
      out.set(c.part, n);
      n += c.part.length;
    }
  });
  return out;
}

/**
 * The status body: the row's fields through the presenter and the response schema, the
 * previews (made now, or earlier by prepare when `prepared` still matches the artifacts)
 * spliced in. The ETag is a digest of the body with each preview as its own digest, so it is
 * the same however the previews were made, and needs no pass over 13 MB.
 */
export async function renderStatusBody(req: RenderInput, prepared?: Previews): Promise<Rendered> {
  const account: Account = { id: req.row.account_id, name: "", tier: req.tier, apiKeyId: "" };
  const sizes = {
    maxRows: req.sizes?.maxRows ?? DEFAULTS.max_rows,
    maxSourceInfluenceRows: req.sizes?.maxSourceInfluenceRows ?? DEFAULTS.max_source_influence_rows,
    maxColumns: req.sizes?.maxColumns ?? DEFAULTS.max_columns,
  };
  const store = new PreloadedStore(req.objects);
  const body = await presentPrediction(req.row, account, store, 0, {
    ...sizes,
    ...(req.sizes?.target ? { target: req.sizes.target } : {}),
    withResults: true,
    withPreviews: false,
  });
  const encoded = PredictionStatusResponse.safeEncode(body);
  if (!encoded.success) return { ok: false, message: `invalid status body: ${encoded.error.message}` };
  const previews =
    prepared ?? (await renderPreviews(store, req.row.result_files, primaryPrefix(req.row), req.tier, sizes));
  if (typeof previews === "string") return { ok: false, message: previews };
  const data: Record<string, unknown> = { ...encoded.data };
  const parts: Uint8Array[] = [];
  const digests: string[] = [];
  for (const [field, part, digest] of [
    ["results", previews.results, previews.digests[0]],
    ["source_influence_matrix", previews.matrix, previews.digests[1]],
  ] as const) {
    // The presenter leaves both fields null in place (completed jobs): keep their position.
    if (!(field in data)) return { ok: false, message: `status body without ${field}` };
    if (part === null) continue;
    data[field] = MARKERS[parts.length];
    parts.push(part);
    digests.push(digest);
  }
  const json = JSON.stringify(data);
  const bytes = splice(json, parts);
  if (typeof bytes === "string") return { ok: false, message: bytes };
  const etag = createHash("sha256")
    .update(JSON.stringify([json, digests]))
    .digest("base64url")
    .slice(0, 32);
  return { ok: true, body: bytes, etag };
}
