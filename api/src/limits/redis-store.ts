/**
 * Redis LimitStore. Each operation is one Lua script, so concurrent API replicas never admit
 * more than the limit: a sliding-window log (sorted set of timestamps) for rate limits and a
 * sorted set of reservations scored by expiry for the in-flight limit. Short timeouts make a
 * Redis outage visible within a second (callers decide fail-open or fail-closed).
 */
import { randomUUID } from "node:crypto";
import { Redis } from "ioredis";
import { LimitStoreUnavailable, type HitResult, type LimitStore } from "./limit-store.ts";

const HIT = `
local now = tonumber(ARGV[1])
local window = tonumber(ARGV[2])
local limit = tonumber(ARGV[3])
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', now - window)
if redis.call('ZCARD', KEYS[1]) < limit then
  redis.call('ZADD', KEYS[1], now, ARGV[4])
  redis.call('PEXPIRE', KEYS[1], window)
  return {1, 0}
end
local oldest = redis.call('ZRANGE', KEYS[1], 0, 0, 'WITHSCORES')
return {0, tonumber(oldest[2]) + window - now}
`;

const RESERVE = `
local now = tonumber(ARGV[1])
local expiry = now + tonumber(ARGV[4])
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', now)
if redis.call('ZSCORE', KEYS[1], ARGV[2]) or redis.call('ZCARD', KEYS[1]) < tonumber(ARGV[3]) then
  redis.call('ZADD', KEYS[1], expiry, ARGV[2])
  local ttl = redis.call('PTTL', KEYS[1])
  if ttl < tonumber(ARGV[4]) then redis.call('PEXPIRE', KEYS[1], ARGV[4]) end
  return 1
end
return 0
`;

export class RedisLimitStore implements LimitStore {
  readonly redis: Redis;

  constructor(url: string) {
    this.redis = new Redis(url, {
      commandTimeout: 1000,
      maxRetriesPerRequest: 1,
      enableOfflineQueue: false,
      lazyConnect: false,
    });
    // Errors surface through commands; an unhandled 'error' event would crash the process.
    this.redis.on("error", () => {});
  }

  async hit(key: string, limit: number, windowMs: number, nowMs: number): Promise<HitResult> {
    const [allowed, waitMs] = (await this.run(() =>
      this.redis.eval(HIT, 1, key, nowMs, windowMs, limit, `${nowMs}-${randomUUID()}`),
    )) as [number, number];
    return {
      allowed: allowed === 1,
      retryAfterSeconds: allowed === 1 ? 0 : Math.max(1, Math.ceil(waitMs / 1000)),
    };
  }

  async reserve(key: string, member: string, limit: number, ttlMs: number, nowMs: number): Promise<boolean> {
    return (await this.run(() => this.redis.eval(RESERVE, 1, key, nowMs, member, limit, ttlMs))) === 1;
  }

  async release(key: string, member: string): Promise<void> {
    await this.run(() => this.redis.zrem(key, member));
  }

  async reservations(key: string, nowMs: number): Promise<string[]> {
    return (await this.run(() => this.redis.zrangebyscore(key, `(${nowMs}`, "+inf"))) as string[];
  }

  async ping(): Promise<void> {
    await this.run(() => this.redis.ping());
  }

  async close(): Promise<void> {
    this.redis.disconnect();
  }

  private async run<T>(fn: () => Promise<T>): Promise<T> {
    try {
      return await fn();
    } catch (err) {
      throw new LimitStoreUnavailable(err);
    }
  }
}
