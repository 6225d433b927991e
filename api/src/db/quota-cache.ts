/**
 * Half a second of memory for quota reads in embedded mode, where the embedded database answers
 * one statement at a time over its socket and a busy client's quota polls would queue behind
 * each other. Every writer of the quota in the process (taking, refunding, setting it, and a job
 * failure that gives a unit back) drops the account's entry at once, so a client always sees its
 * own submissions; only a change from another process (the admin command line) can be up to
 * `QUOTA_CACHE_TTL_MS` late. Not used with PostgreSQL, where replicas share the quota.
 */
import type { QuotaRecord } from "./accounts.ts";

export const QUOTA_CACHE_TTL_MS = 500;

const caches = new WeakMap<object, Map<string, { record: QuotaRecord; expiresAt: number }>>();

function cacheOf(db: object): Map<string, { record: QuotaRecord; expiresAt: number }> {
  let cache = caches.get(db);
  if (!cache) caches.set(db, (cache = new Map()));
  return cache;
}

/** The cached record, or the one `read` returns (then remembered). */
export async function cachedQuota(
  db: object,
  accountId: string,
  read: () => Promise<QuotaRecord>,
  clock: () => number = () => performance.now(),
): Promise<QuotaRecord> {
  const cache = cacheOf(db);
  const hit = cache.get(accountId);
  if (hit && hit.expiresAt > clock()) return hit.record;
  const record = await read();
  if (cache.size >= 10_000) cache.clear();
  cache.set(accountId, { record, expiresAt: clock() + QUOTA_CACHE_TTL_MS });
  return record;
}

/** Drops an account's cached quota (every in-process write of the quota calls this). */
export function forgetQuota(db: object, accountId: string): void {
  caches.get(db)?.delete(accountId);
}
