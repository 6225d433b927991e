/**
 * The idempotency_keys table (migration 1763800000000). Every statement is a single atomic
 * statement on the pool, never a transaction: concurrent retries race on the primary key
 * (INSERT ... ON CONFLICT), which is safe on PostgreSQL and on embedded PGlite alike.
 */
import type { Queryable } from "./database.ts";

export interface StoredResponse {
  status: number;
  headers: Record<string, string>;
  body: unknown;
}

export type KeyRecord =
  | { state: "claimed"; token: string }
  | { state: "in_progress" }
  | { state: "completed"; fingerprint: string; response: StoredResponse };

interface Row {
  claim_token: string;
  fingerprint: string | null;
  response_status: number | null;
  response_headers: Record<string, string> | null;
  response_body: unknown;
  claimed: boolean;
}

/**
 * Claims (account, key) for a new request, or reports what holds it. An expired row, or a claim
 * older than `staleBefore` that never recorded a response (its process died mid-request), is
 * taken over in the same statement.
 */
export async function claimIdempotencyKey(
  db: Queryable,
  args: { accountId: string; key: string; token: string; now: Date; expiresAt: Date; staleBefore: Date },
): Promise<KeyRecord> {
  const { rows } = await db.query<Row>(
    `INSERT INTO idempotency_keys AS k (account_id, idempotency_key, claim_token, claimed_at, expires_at)
     VALUES ($1, $2, $3, $4, $5)
     ON CONFLICT (account_id, idempotency_key) DO UPDATE
       SET claim_token = EXCLUDED.claim_token, fingerprint = NULL, response_status = NULL,
           response_headers = NULL, response_body = NULL,
           claimed_at = EXCLUDED.claimed_at, expires_at = EXCLUDED.expires_at
       WHERE k.expires_at <= $4 OR (k.response_status IS NULL AND k.claimed_at < $6)
     RETURNING claim_token, fingerprint, response_status, response_headers, response_body, true AS claimed`,
    [args.accountId, args.key, args.token, args.now, args.expiresAt, args.staleBefore],
  );
  if (rows[0]) return { state: "claimed", token: rows[0].claim_token };
  // Held by another request: read what it holds (it may have been released in between).
  const held = await db.query<Row>(
    `SELECT claim_token, fingerprint, response_status, response_headers, response_body, false AS claimed
       FROM idempotency_keys WHERE account_id = $1 AND idempotency_key = $2`,
    [args.accountId, args.key],
  );
  const row = held.rows[0];
  if (!row) return claimIdempotencyKey(db, args);
  if (row.response_status === null || row.fingerprint === null) return { state: "in_progress" };
  return {
    state: "completed",
    fingerprint: row.fingerprint,
    response: { status: row.response_status, headers: row.response_headers ?? {}, body: row.response_body },
  };
}

/** Stores the response of the claim holder; false when the claim was lost (taken over as stale). */
export async function recordIdempotentResponse(
  db: Queryable,
  args: { accountId: string; key: string; token: string; fingerprint: string; response: StoredResponse },
): Promise<boolean> {
  const { rowCount } = await db.query(
    `UPDATE idempotency_keys
        SET fingerprint = $4, response_status = $5, response_headers = $6, response_body = $7
      WHERE account_id = $1 AND idempotency_key = $2 AND claim_token = $3`,
    [
      args.accountId,
      args.key,
      args.token,
      args.fingerprint,
      args.response.status,
      JSON.stringify(args.response.headers),
      JSON.stringify(args.response.body),
    ],
  );
  return rowCount === 1;
}

/** Gives an unrecorded claim back (the request failed): the key is free for a corrected retry. */
export async function releaseIdempotencyKey(
  db: Queryable,
  args: { accountId: string; key: string; token: string },
): Promise<void> {
  await db.query(
    `DELETE FROM idempotency_keys
      WHERE account_id = $1 AND idempotency_key = $2 AND claim_token = $3 AND response_status IS NULL`,
    [args.accountId, args.key, args.token],
  );
}

/** Deletes an account's expired records (after each new claim, so the table stays small); returns how many. */
export async function deleteExpiredIdempotencyKeys(
  db: Queryable,
  accountId: string,
  now: Date,
): Promise<number> {
  const { rowCount } = await db.query(
    `DELETE FROM idempotency_keys WHERE account_id = $1 AND expires_at <= $2`,
    [accountId, now],
  );
  return rowCount ?? 0;
}

/** Frees claims that never recorded a response and were made before `before` (their process died). */
export async function releaseDeadClaims(db: Queryable, before: Date): Promise<number> {
  const { rowCount } = await db.query(
    `DELETE FROM idempotency_keys WHERE response_status IS NULL AND claimed_at < $1`,
    [before],
  );
  return rowCount ?? 0;
}
