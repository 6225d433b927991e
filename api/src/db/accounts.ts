/**
 * Accounts, API keys and the lifetime quota. PostgreSQL is the durable source of truth for
 * the quota: a unit is taken with one conditional UPDATE (never more than the total, however
 * many submissions race) and given back at most once per prediction.
 */
import { createHash, randomBytes, randomUUID } from "node:crypto";
import { accountCacheOf } from "./account-cache.ts";
import type { Queryable } from "./database.ts";
import { forgetQuota } from "./quota-cache.ts";

export type Tier = "external" | "internal";

/** The caller as the routes see it. */
export interface Account {
  id: string;
  name: string;
  tier: Tier;
  apiKeyId: string;
}

export interface AccountRow {
  id: string;
  name: string;
  tier: Tier;
  quota_total: number | null;
  quota_consumed: number;
  created_at: Date;
}

export interface KeyRow {
  id: string;
  account_id: string;
  display_prefix: string;
  created_at: Date;
  revoked_at: Date | null;
}

/** Visible prefix of every key, so a leaked key is recognisable (secret scanners, support). */
export const KEY_PREFIX = "cw_";

/** A new key: 32 random bytes, base64url, with the visible prefix. */
export function generateApiKey(): string {
  return KEY_PREFIX + randomBytes(32).toString("base64url");
}

export function hashApiKey(key: string): Buffer {
  return createHash("sha256").update(key, "utf8").digest();
}

export async function createAccount(
  db: Queryable,
  input: { name: string; tier: Tier; quota?: number | null },
): Promise<{ account: AccountRow; apiKey: string; keyId: string }> {
  const id = randomUUID();
  const { rows } = await db.query<AccountRow>(
    `INSERT INTO accounts (id, name, tier, quota_total) VALUES ($1, $2, $3, $4) RETURNING *`,
    [id, input.name, input.tier, input.quota ?? null],
  );
  const { apiKey, keyId } = await createKey(db, id);
  return { account: rows[0]!, apiKey, keyId };
}

export async function listAccounts(db: Queryable): Promise<AccountRow[]> {
  return (await db.query<AccountRow>(`SELECT * FROM accounts ORDER BY created_at, id`)).rows;
}

export async function getAccount(db: Queryable, id: string): Promise<AccountRow | null> {
  return (await db.query<AccountRow>(`SELECT * FROM accounts WHERE id = $1`, [id])).rows[0] ?? null;
}

/** Issues a key; the plaintext is returned once and only its hash is stored. */
export async function createKey(
  db: Queryable,
  accountId: string,
): Promise<{ apiKey: string; keyId: string }> {
  const apiKey = generateApiKey();
  const keyId = randomUUID();
  await db.query(`INSERT INTO api_keys (id, account_id, key_hash, display_prefix) VALUES ($1, $2, $3, $4)`, [
    keyId,
    accountId,
    hashApiKey(apiKey),
    apiKey.slice(0, KEY_PREFIX.length + 6),
  ]);
  return { apiKey, keyId };
}

export async function listKeys(db: Queryable, accountId: string): Promise<KeyRow[]> {
  return (
    await db.query<KeyRow>(
      `SELECT id, account_id, display_prefix, created_at, revoked_at FROM api_keys WHERE account_id = $1 ORDER BY created_at, id`,
      [accountId],
    )
  ).rows;
}

/** Revokes a key; returns false when no such active key exists. */
export async function revokeKey(db: Queryable, keyId: string): Promise<boolean> {
  const { rowCount } = await db.query(
    `UPDATE api_keys SET revoked_at = now() WHERE id = $1 AND revoked_at IS NULL`,
    [keyId],
  );
  accountCacheOf(db).forgetKey(keyId);
  return rowCount === 1;
}

/** Sets (or with null clears) an account's quota override. */
export async function setQuota(db: Queryable, accountId: string, total: number | null): Promise<boolean> {
  const { rowCount } = await db.query(`UPDATE accounts SET quota_total = $2 WHERE id = $1`, [
    accountId,
    total,
  ]);
  forgetQuota(db, accountId);
  return rowCount === 1;
}

/**
 * The account behind a presented key, or null for unknown, malformed and revoked keys alike.
 * One query, answered from a few seconds of memory when the key was just seen (account-cache.ts).
 */
export async function findAccountByKey(db: Queryable, apiKey: string): Promise<Account | null> {
  const hash = hashApiKey(apiKey);
  const cache = accountCacheOf(db);
  const cacheKey = hash.toString("base64");
  const cached = cache.get(cacheKey);
  if (cached) return cached;
  const { rows } = await db.query<{ id: string; name: string; tier: Tier; key_id: string }>(
    `SELECT a.id, a.name, a.tier, k.id AS key_id
       FROM api_keys k JOIN accounts a ON a.id = k.account_id
      WHERE k.key_hash = $1 AND k.revoked_at IS NULL`,
    [hash],
  );
  const row = rows[0];
  if (!row) return null;
  // Frozen: the same object is handed to every request within the cache lifetime.
  const account: Account = Object.freeze({
    id: row.id,
    name: row.name,
    tier: row.tier,
    apiKeyId: row.key_id,
  });
  cache.set(cacheKey, account);
  return account;
}

export interface QuotaRecord {
  total_quota_requests: number;
  consumed_quota_requests: number;
  remaining_quota_requests: number;
}

export async function getQuota(db: Queryable, accountId: string, defaultQuota: number): Promise<QuotaRecord> {
  const { rows } = await db.query<{ total: number; consumed: number }>(
    `SELECT COALESCE(quota_total, $2::int) AS total, quota_consumed AS consumed FROM accounts WHERE id = $1`,
    [accountId, defaultQuota],
  );
  const row = rows[0] ?? { total: defaultQuota, consumed: 0 };
  return {
    total_quota_requests: row.total,
    consumed_quota_requests: row.consumed,
    remaining_quota_requests: Math.max(0, row.total - row.consumed),
  };
}

/**
 * Takes one quota unit when one is left (atomic: concurrent callers never exceed the total) and
 * records it as a charge of `submissionId` in the same statement (quota_charges), so a unit is
 * never held by nothing: the prediction row settles the charge, a refund deletes it, and a
 * process that died in between leaves a row the next start refunds (crash-reconciliation).
 */
export async function consumeQuota(
  db: Queryable,
  accountId: string,
  defaultQuota: number,
  charge: { submissionId: string; at: Date },
): Promise<boolean> {
  const { rowCount } = await db.query(
    `WITH taken AS (
       UPDATE accounts SET quota_consumed = quota_consumed + 1
        WHERE id = $1 AND quota_consumed < COALESCE(quota_total, $2::int)
        RETURNING id)
     INSERT INTO quota_charges (submission_id, account_id, charged_at) SELECT $3, id, $4 FROM taken`,
    [accountId, defaultQuota, charge.submissionId, charge.at],
  );
  forgetQuota(db, accountId);
  return rowCount === 1;
}

/** Gives back the unit `submissionId` was charged, once (nothing when it holds no charge). */
export async function refundQuota(db: Queryable, accountId: string, submissionId: string): Promise<void> {
  await db.query(
    `WITH charge AS (DELETE FROM quota_charges WHERE submission_id = $2 AND account_id = $1 RETURNING account_id)
     UPDATE accounts SET quota_consumed = quota_consumed - 1
      WHERE id IN (SELECT account_id FROM charge) AND quota_consumed > 0`,
    [accountId, submissionId],
  );
  forgetQuota(db, accountId);
}

/** The prediction row exists: it owns the unit now (refunded, if ever, through quota_refunded). */
export async function settleQuotaCharge(db: Queryable, submissionId: string): Promise<void> {
  await db.query(`DELETE FROM quota_charges WHERE submission_id = $1`, [submissionId]);
}

/**
 * Refunds every unit charged before `before` whose prediction row was never written (its
 * process died mid-submission) and drops settled leftovers. Returns the units refunded per account.
 */
export async function refundAbandonedCharges(
  db: Queryable,
  before: Date,
): Promise<{ account_id: string; refunded: number }[]> {
  const { rows } = await db.query<{ account_id: string; refunded: number }>(
    `WITH gone AS (
       DELETE FROM quota_charges c WHERE c.charged_at < $1
       RETURNING c.account_id, EXISTS (SELECT 1 FROM predictions p WHERE p.id = c.submission_id) AS settled),
     owed AS (SELECT account_id, count(*)::int AS n FROM gone WHERE NOT settled GROUP BY account_id)
     UPDATE accounts a SET quota_consumed = GREATEST(0, a.quota_consumed - owed.n)
       FROM owed WHERE a.id = owed.account_id
     RETURNING a.id AS account_id, owed.n AS refunded`,
    [before],
  );
  for (const r of rows) forgetQuota(db, r.account_id);
  return rows;
}
