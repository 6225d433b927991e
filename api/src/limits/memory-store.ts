/** In-process LimitStore (embedded mode, unit tests). JavaScript's single thread makes each call atomic. */
import type { HitResult, LimitStore } from "./limit-store.ts";

export class MemoryLimitStore implements LimitStore {
  private readonly windows = new Map<string, number[]>();
  private readonly sets = new Map<string, Map<string, number>>();
  private readonly timer: NodeJS.Timeout;

  constructor(pruneEveryMs = 60_000) {
    // Drops idle keys so one-off client addresses do not accumulate forever.
    this.timer = setInterval(() => this.prune(Date.now()), pruneEveryMs);
    this.timer.unref();
  }

  async hit(key: string, limit: number, windowMs: number, nowMs: number): Promise<HitResult> {
    const since = nowMs - windowMs;
    const times = (this.windows.get(key) ?? []).filter((t) => t > since);
    if (times.length < limit) {
      times.push(nowMs);
      this.windows.set(key, times);
      return { allowed: true, retryAfterSeconds: 0 };
    }
    this.windows.set(key, times);
    const oldest = times[0] ?? nowMs;
    return { allowed: false, retryAfterSeconds: Math.max(1, Math.ceil((oldest + windowMs - nowMs) / 1000)) };
  }

  async reserve(key: string, member: string, limit: number, ttlMs: number, nowMs: number): Promise<boolean> {
    const set = this.live(key, nowMs);
    if (set.has(member) || set.size < limit) {
      set.set(member, nowMs + ttlMs);
      this.sets.set(key, set);
      return true;
    }
    return false;
  }

  async release(key: string, member: string): Promise<void> {
    const set = this.sets.get(key);
    if (!set) return;
    set.delete(member);
    if (set.size === 0) this.sets.delete(key);
  }

  async reservations(key: string, nowMs: number): Promise<string[]> {
    return [...this.live(key, nowMs).keys()];
  }

  async ping(): Promise<void> {}

  async close(): Promise<void> {
    clearInterval(this.timer);
  }

  private live(key: string, nowMs: number): Map<string, number> {
    const set = this.sets.get(key) ?? new Map<string, number>();
    for (const [m, expiry] of set) if (expiry <= nowMs) set.delete(m);
    return set;
  }

  private prune(nowMs: number): void {
    for (const [key, times] of this.windows) {
      // Windows are at most a day long (config bounds).
      if ((times[times.length - 1] ?? 0) < nowMs - 86_400_000) this.windows.delete(key);
    }
    for (const [key] of this.sets) if (this.live(key, nowMs).size === 0) this.sets.delete(key);
  }
}
