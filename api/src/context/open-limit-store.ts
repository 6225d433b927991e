/** The limit counters of the context: Redis when REDIS_URL is set, in-process counters otherwise. */
import type { Config } from "../config.ts";
import type { LimitStore } from "../limits/limit-store.ts";
import { MemoryLimitStore } from "../limits/memory-store.ts";
import { RedisLimitStore } from "../limits/redis-store.ts";

export function openLimitStore(config: Config): LimitStore {
  return config.redisUrl ? new RedisLimitStore(config.redisUrl) : new MemoryLimitStore();
}
