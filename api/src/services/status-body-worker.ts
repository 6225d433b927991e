/**
 * Worker thread that renders the status body of a completed prediction at the contract's
 * default preview sizes: the same presenter and the same response schema the route uses, so
 * the stored bytes are exactly what the route would have sent. It runs off the main thread
 * because a full preview is over a million matrix cells: rendering it inline would stall every
 * other request (and runner callbacks) for a third of a second.
 */
import { createHash } from "node:crypto";
import { setPriority } from "node:os";
import { parentPort } from "node:worker_threads";
import type { Readable } from "node:stream";
import { ObjectNotFound, type ObjectStore } from "@causeway/runner/storage";
import type { Account } from "../db/accounts.ts";
import type { PredictionRow } from "../db/jobs.ts";
import { PredictionStatusResponse, StatusQuery } from "../schemas/predictions.ts";
import { presentPrediction } from "./present.ts";

export interface RenderRequest {
  id: number;
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

export type RenderResponse =
  | { id: number; ok: true; body: Uint8Array<ArrayBuffer>; etag: string }
  | { id: number; ok: false; message: string };

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

async function render(req: RenderRequest): Promise<RenderResponse> {
  const account: Account = { id: req.row.account_id, name: "", tier: req.tier, apiKeyId: "" };
  const sizes = req.sizes;
  const body = await presentPrediction(req.row, account, new PreloadedStore(req.objects), 0, {
    maxRows: sizes?.maxRows ?? DEFAULTS.max_rows,
    maxSourceInfluenceRows: sizes?.maxSourceInfluenceRows ?? DEFAULTS.max_source_influence_rows,
    maxColumns: sizes?.maxColumns ?? DEFAULTS.max_columns,
    ...(sizes?.target ? { target: sizes.target } : {}),
    withResults: true,
  });
  // What the route's serializer does (fastify-type-provider-zod): encode, then JSON.stringify.
  const encoded = PredictionStatusResponse.safeEncode(body);
  if (!encoded.success)
    return { id: req.id, ok: false, message: `invalid status body: ${encoded.error.message}` };
  // TextEncoder gives an ArrayBuffer of its own (never Buffer's shared pool), safe to transfer.
  const bytes = new TextEncoder().encode(JSON.stringify(encoded.data));
  const etag = createHash("sha256").update(bytes).digest("base64url").slice(0, 32);
  return { id: req.id, ok: true, body: bytes, etag };
}

// Rendering is never urgent next to the jobs and requests sharing the machine's cores. On Linux,
// setpriority(0) applies to the calling thread only: this worker, not the API's event loop.
try {
  setPriority(19);
} catch {
  // Not permitted here: run at normal priority.
}

parentPort?.on("message", (req: RenderRequest) => {
  render(req).then(
    (res) => parentPort!.postMessage(res, res.ok ? [res.body.buffer] : []),
    (err: unknown) =>
      parentPort!.postMessage({
        id: req.id,
        ok: false,
        message: err instanceof Error ? err.message : String(err),
      }),
  );
});
