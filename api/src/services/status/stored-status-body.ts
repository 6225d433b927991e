/**
 * A prediction's stored status body: where it lives beside the job's artifacts, its format (a
 * small JSON head, then the body's bytes as they are sent), the fingerprint that says whether a
 * stored body still matches its row, and whether a query asks for exactly that body.
 */
import { createHash } from "node:crypto";
import { dirname } from "node:path";
import { z } from "zod";
import type { ObjectStore } from "@causeway/runner/storage";
import type { Account, Tier } from "../../db/accounts.ts";
import type { PredictionRow } from "../../db/jobs.ts";
import { presentPrediction } from "./present.ts";
import type { ServedStatus } from "./status-documents.ts";

/** A status body in memory, with what the cache and the serving path keep beside it. */
export interface Loaded {
  tier: Tier;
  head: string;
  etag: string;
  /** The body with empty download links. */
  body: Buffer;
  served?: ServedStatus & { expiresAtMs: number };
  /** `served` being made. */
  serving?: Promise<ServedStatus | null> | undefined;
  /** performance.now() of its last use (the cache lets idle bodies go). */
  usedAt?: number;
}

const Meta = z.object({
  format: z.literal(1),
  tier: z.enum(["external", "internal"]),
  head: z.string(),
  etag: z.string(),
});

export const BODY_MARK = Buffer.from(',"body":');

/** Where the stored body lives: beside the job's artifacts (removed with them). */
export function storedKey(p: PredictionRow, tier: Tier): string | null {
  const keys = Object.values(p.result_files ?? {}).sort();
  const first = keys[0];
  return first ? `${dirname(first)}/status-body.${tier}.json` : null;
}

export function parseStored(raw: Buffer): Loaded | null {
  const at = raw.indexOf(BODY_MARK);
  if (at < 0 || raw[raw.length - 1] !== 0x7d) return null;
  const meta = Meta.safeParse(JSON.parse(raw.subarray(0, at).toString("utf8") + "}"));
  if (!meta.success) return null;
  const { tier, head, etag } = meta.data;
  return { tier, head, etag, body: raw.subarray(at + BODY_MARK.length, raw.length - 1) };
}

/** Fingerprint of the row fields a status body shows besides its results. */
export async function headOf(store: ObjectStore, p: PredictionRow, tier: Tier): Promise<string> {
  const account: Account = { id: p.account_id, name: "", tier, apiKeyId: "" };
  // Without results the presenter reads no artifacts and signs no links.
  const head = await presentPrediction(p, account, store, 0, {
    maxRows: 0,
    maxSourceInfluenceRows: 0,
    maxColumns: 0,
    withResults: false,
  });
  const files = Object.entries(p.result_files ?? {}).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  return createHash("sha256")
    .update(JSON.stringify([head, files, p.result_sets, p.target]))
    .digest("base64url")
    .slice(0, 32);
}

/** Whether a status query asks for exactly the stored body (the contract's defaults). */
export function isDefaultStatusQuery(
  q: {
    max_rows: number;
    max_source_influence_rows: number;
    max_columns: number;
    target?: string | undefined;
  },
  defaults: { max_rows: number; max_source_influence_rows: number; max_columns: number },
): boolean {
  return (
    q.target === undefined &&
    q.max_rows === defaults.max_rows &&
    q.max_source_influence_rows === defaults.max_source_influence_rows &&
    q.max_columns === defaults.max_columns
  );
}
