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
import type { Account } from "../db/accounts.ts";
import type { PredictionRow } from "../db/jobs.ts";
import { PredictionStatusResponse, StatusQuery } from "../schemas/predictions.ts";
import { readMatrixPreviewJson } from "./artifacts.ts";
import { presentPrediction } from "./present.ts";

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
class PreloadedStore implements ObjectStore {
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

export async function renderStatusBody(req: RenderInput): Promise<Rendered> {
  const account: Account = { id: req.row.account_id, name: "", tier: req.tier, apiKeyId: "" };
  const sizes = req.sizes;
  // The matrix cells (most of the body) are formatted straight to JSON text and spliced in
  // below; the rest goes through the response schema as the route's serializer does.
  let cells: Buffer | undefined;
  const body = await presentPrediction(req.row, account, new PreloadedStore(req.objects), 0, {
    maxRows: sizes?.maxRows ?? DEFAULTS.max_rows,
    maxSourceInfluenceRows: sizes?.maxSourceInfluenceRows ?? DEFAULTS.max_source_influence_rows,
    maxColumns: sizes?.maxColumns ?? DEFAULTS.max_columns,
    ...(sizes?.target ? { target: sizes.target } : {}),
    withResults: true,
    readMatrix: async (...args) => {
      const read = await readMatrixPreviewJson(...args);
      cells = read?.dataJson;
      return read?.preview ?? null;
    },
  });
  const bytes = encodeStatusBody(body, cells);
  if (typeof bytes === "string") return { ok: false, message: bytes };
  const etag = createHash("sha256").update(bytes).digest("base64url").slice(0, 32);
  return { ok: true, body: bytes, etag };
}

/**
 * What the route's serializer (fastify-type-provider-zod) makes of `body`, encode then
 * JSON.stringify, with `cells` (JSON text, ASCII) as the matrix's data; an error message when the
 * body does not satisfy the response schema.
 */
export function encodeStatusBody(
  body: PredictionStatusResponse,
  cells: Uint8Array | undefined,
): Uint8Array<ArrayBuffer> | string {
  const encoded = PredictionStatusResponse.safeEncode(body);
  if (!encoded.success) return `invalid status body: ${encoded.error.message}`;
  const matrix = encoded.data.source_influence_matrix;
  const encoder = new TextEncoder();
  // TextEncoder gives an ArrayBuffer of its own (never Buffer's shared pool), safe to transfer.
  if (!matrix || cells === undefined) return encoder.encode(JSON.stringify(encoded.data));
  // A marker no field can hold (text fields refuse NUL), found exactly once, stands for the cells.
  const marker = `\u0000${randomUUID()}`;
  const json = JSON.stringify({
    ...encoded.data,
    source_influence_matrix: { ...matrix, data: marker as unknown as number[][] },
  });
  const quoted = JSON.stringify(marker);
  const at = json.indexOf(quoted);
  if (at < 0 || json.indexOf(quoted, at + 1) >= 0) return "status body marker not found once";
  const head = json.slice(0, at);
  const tail = json.slice(at + quoted.length);
  const out = new Uint8Array(Buffer.byteLength(head) + cells.length + Buffer.byteLength(tail));
  let n = encoder.encodeInto(head, out).written;
  out.set(cells, n);
  n += cells.length;
  encoder.encodeInto(tail, out.subarray(n));
  return out;
}
