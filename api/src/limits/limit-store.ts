/**
 * Counters behind the per-key rate limit, the edge limit and the in-flight limit: Redis in
 * production (atomic Lua scripts, shared by every replica), in-process memory in embedded
 * mode and unit tests. The lifetime quota is not here: PostgreSQL is its source of truth
 * (db/accounts.ts), because it must survive restarts and a Redis flush.
 */

export interface HitResult {
  allowed: boolean;
  /** Seconds until the window admits the next request (0 when allowed). */
  retryAfterSeconds: number;
}

export interface LimitStore {
  /**
   * Sliding-window rate limit: counts this request and allows it when fewer than `limit`
   * allowed requests fell in the last `windowMs`. Rejected requests are not counted.
   */
  hit(key: string, limit: number, windowMs: number, nowMs: number): Promise<HitResult>;
  /**
   * Takes (or refreshes) the reservation `member` in the set `key` when fewer than `limit`
   * unexpired reservations exist; a reservation expires at `nowMs + ttlMs` unless refreshed.
   */
  reserve(key: string, member: string, limit: number, ttlMs: number, nowMs: number): Promise<boolean>;
  /** Drops a reservation; idempotent. */
  release(key: string, member: string): Promise<void>;
  /** Unexpired reservations in a set (tests, diagnostics). */
  reservations(key: string, nowMs: number): Promise<string[]>;
  ping(): Promise<void>;
  close(): Promise<void>;
}

/** Raised when the store cannot answer (Redis down). */
export class LimitStoreUnavailable extends Error {
  constructor(cause: unknown) {
    super("limit store unavailable", { cause });
    this.name = "LimitStoreUnavailable";
  }
}

export const limitKeys = {
  rate: (apiKeyId: string) => `cw:rate:${apiKeyId}`,
  edge: (address: string) => `cw:edge:${address}`,
  inflight: (accountId: string) => `cw:inflight:${accountId}`,
  callback: (address: string) => `cw:callback:${address}`,
  causalRate: (apiKeyId: string) => `cw:causal-rate:${apiKeyId}`,
  causalInflight: (accountId: string) => `cw:causal-inflight:${accountId}`,
};
