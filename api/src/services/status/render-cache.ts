/**
 * Results of expensive reads keyed by the request that made them (prediction, stored inputs,
 * sizes): a repeated read is served from memory, and reads of one key arriving together share
 * one render. Least recently used entries leave first once `maxBytes` is exceeded, and an entry
 * not read for `idleMs` leaves at the next sweep, so an idle server holds none of them.
 */
/** How long a rendered result no one reads stays in memory. */
export const RENDER_IDLE_MS = 60_000;

export interface RenderCacheOptions<V> {
  maxBytes: number;
  idleMs: number;
  sizeOf: (value: V) => number;
}

interface Entry<V> {
  value: V;
  bytes: number;
  usedAt: number;
}

export class RenderCache<V> {
  private readonly o: RenderCacheOptions<V>;
  private readonly entries = new Map<string, Entry<V>>();
  private readonly pending = new Map<string, Promise<V>>();
  private bytes = 0;
  private sweepTimer: NodeJS.Timeout | undefined;

  constructor(options: RenderCacheOptions<V>) {
    this.o = options;
  }

  /** Entries held (tests, diagnostics). */
  get size(): number {
    return this.entries.size;
  }

  /** The value cached under `key` (most recently used from now on), or undefined. */
  peek(key: string): V | undefined {
    const e = this.entries.get(key);
    if (!e) return undefined;
    this.entries.delete(key);
    e.usedAt = performance.now();
    this.entries.set(key, e);
    return e.value;
  }

  /** The cached value, the one being made for the same key, or a new one from `make`. */
  async get(key: string, make: () => Promise<V>): Promise<V> {
    const hit = this.peek(key);
    if (hit !== undefined) return hit;
    let job = this.pending.get(key);
    if (!job) {
      job = make()
        .then((value) => {
          this.remember(key, value);
          return value;
        })
        .finally(() => this.pending.delete(key));
      this.pending.set(key, job);
    }
    return job;
  }

  clear(): void {
    clearTimeout(this.sweepTimer);
    this.sweepTimer = undefined;
    this.entries.clear();
    this.bytes = 0;
  }

  private remember(key: string, value: V): void {
    const bytes = this.o.sizeOf(value);
    // Larger than the whole budget: served once, not kept.
    if (bytes > this.o.maxBytes) return;
    this.forget(key);
    this.entries.set(key, { value, bytes, usedAt: performance.now() });
    this.bytes += bytes;
    for (const k of this.entries.keys()) {
      if (this.bytes <= this.o.maxBytes) break;
      this.forget(k);
    }
    this.scheduleSweep();
  }

  private forget(key: string): void {
    const e = this.entries.get(key);
    if (!e) return;
    this.entries.delete(key);
    this.bytes -= e.bytes;
  }

  private scheduleSweep(): void {
    if (this.sweepTimer !== undefined || this.entries.size === 0) return;
    this.sweepTimer = setTimeout(() => {
      this.sweepTimer = undefined;
      const now = performance.now();
      for (const [k, e] of this.entries) if (now - e.usedAt >= this.o.idleMs) this.forget(k);
      this.scheduleSweep();
    }, this.o.idleMs / 2);
    this.sweepTimer.unref();
  }
}
