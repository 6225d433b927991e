/**
 * A few seconds of memory for API-key lookups: every authenticated request would otherwise
 * pay a database round-trip before its own query. Entries are keyed by the key's SHA-256
 * (never the key) and live `ttlMs`; a revocation through `revokeKey` in this process drops
 * the key's entry at once, and one made elsewhere (the admin command line, another replica)
 * takes effect within `ttlMs`. Unknown and revoked keys are not remembered, so a key created
 * a moment ago works at once and guessing costs a lookup each time as before.
 */
import type { Account } from "./accounts.ts";

/** How long a looked-up account is trusted without asking the database again. */
export const ACCOUNT_CACHE_TTL_MS = 5_000;
const MAX_ENTRIES = 10_000;

export class AccountCache {
  private readonly entries = new Map<string, { account: Account; expiresAt: number }>();
  private readonly ttlMs: number;
  private readonly clock: () => number;

  // A monotonic clock: wall-clock jumps (and tests' fixed clocks) must not extend an entry.
  constructor(ttlMs = ACCOUNT_CACHE_TTL_MS, clock: () => number = () => performance.now()) {
    this.ttlMs = ttlMs;
    this.clock = clock;
  }

  get(keyHash: string): Account | null {
    const e = this.entries.get(keyHash);
    if (!e) return null;
    if (e.expiresAt <= this.clock()) {
      this.entries.delete(keyHash);
      return null;
    }
    return e.account;
  }

  set(keyHash: string, account: Account): void {
    if (this.entries.size >= MAX_ENTRIES) {
      // Oldest first (insertion order); expired entries would be dropped on read anyway.
      const oldest = this.entries.keys().next().value;
      if (oldest !== undefined) this.entries.delete(oldest);
    }
    this.entries.set(keyHash, { account, expiresAt: this.clock() + this.ttlMs });
  }

  /** Drops every entry of one API key (revocation). */
  forgetKey(keyId: string): void {
    for (const [hash, e] of this.entries) if (e.account.apiKeyId === keyId) this.entries.delete(hash);
  }
}

// One cache per database handle, so separate databases (tests, tools) never share entries.
const caches = new WeakMap<object, AccountCache>();

export function accountCacheOf(db: object): AccountCache {
  let cache = caches.get(db);
  if (!cache) {
    cache = new AccountCache();
    caches.set(db, cache);
  }
  return cache;
}
