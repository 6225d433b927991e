/** In-process LimitStore (embedded mode, unit tests). JavaScript's single thread makes each call atomic. */
import type { HitResult, LimitStore } from "./limit-store.ts";

/**
 * The admitted requests of one sliding window: their times in a ring buffer, oldest first.
 * A hit drops the expired times from the front and appends at the back, so its cost does not
 * grow with the traffic (amortized O(1)); the buffer never holds more than `limit` times and is
 * grown by doubling, never copied per request. Times, not per-interval counters, because the
 * contract's window slides to the millisecond: a request expires exactly `windowMs` after it
 * was admitted, and Retry-After is computed from the oldest admitted request.
 */
export class SlidingWindowLog {
  private times: Float64Array;
  private head = 0;
  private size = 0;

  constructor(initialCapacity = 8) {
    this.times = new Float64Array(initialCapacity);
  }

  /** The newest admitted time, or -Infinity when none is held. */
  get newest(): number {
    return this.size === 0 ? -Infinity : this.times[(this.head + this.size - 1) % this.times.length]!;
  }

  hit(limit: number, windowMs: number, nowMs: number): HitResult {
    const since = nowMs - windowMs;
    const cap = this.times.length;
    while (this.size > 0 && this.times[this.head]! <= since) {
      this.head = (this.head + 1) % cap;
      this.size--;
    }
    if (this.size < limit) {
      if (this.size === this.times.length) this.grow(limit);
      this.times[(this.head + this.size) % this.times.length] = nowMs;
      this.size++;
      return { allowed: true, retryAfterSeconds: 0 };
    }
    const oldest = this.size > 0 ? this.times[this.head]! : nowMs;
    return { allowed: false, retryAfterSeconds: Math.max(1, Math.ceil((oldest + windowMs - nowMs) / 1000)) };
  }

  private grow(limit: number): void {
    const next = new Float64Array(Math.max(1, Math.min(limit, this.times.length * 2)));
    for (let i = 0; i < this.size; i++) next[i] = this.times[(this.head + i) % this.times.length]!;
    this.times = next;
    this.head = 0;
  }
}

export class MemoryLimitStore implements LimitStore {
  private readonly windows = new Map<string, SlidingWindowLog>();
  private readonly sets = new Map<string, Map<string, number>>();
  private readonly timer: NodeJS.Timeout;

  constructor(pruneEveryMs = 60_000) {
    // Drops idle keys so one-off client addresses do not accumulate forever.
    this.timer = setInterval(() => this.prune(Date.now()), pruneEveryMs);
    this.timer.unref();
  }

  async hit(key: string, limit: number, windowMs: number, nowMs: number): Promise<HitResult> {
    let window = this.windows.get(key);
    if (!window) {
      window = new SlidingWindowLog(Math.min(limit, 8));
      this.windows.set(key, window);
    }
    return window.hit(limit, windowMs, nowMs);
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
    for (const [key, window] of this.windows) {
      // Windows are at most a day long (config bounds).
      if (window.newest < nowMs - 86_400_000) this.windows.delete(key);
    }
    for (const [key] of this.sets) if (this.live(key, nowMs).size === 0) this.sets.delete(key);
  }
}
