/**
 * A keyed, de-duplicating work queue after client-go's workqueue: a key waits in the queue
 * at most once, a key is never processed twice at the same time (a change that arrives while
 * it runs marks it dirty and it runs again afterwards), a concurrency cap, and per-key
 * exponential backoff on failure. Waiting keys are taken round-robin across groups (the
 * operator groups by account), first come first served within a group, so one account's
 * burst does not queue another account's work behind it.
 */
import type { Clock } from "./clock.ts";

/** What a handler asks for after a successful pass. */
export interface HandlerResult {
  requeueAfterMs?: number | null;
}

/** Observers for the workqueue_* metrics. */
export interface QueueMetrics {
  depth(n: number): void;
  added(): void;
  queued(seconds: number): void;
  worked(seconds: number): void;
  retried(): void;
}

/** Options of {@link WorkQueue}. */
export interface WorkQueueOptions {
  concurrency: number;
  baseDelayMs: number;
  maxDelayMs: number;
  clock: Clock;
  handler: (key: string) => Promise<HandlerResult>;
  onError?: (key: string, err: unknown, attempt: number) => void;
  metrics?: QueueMetrics;
  /** The fairness group of a key, read when it is enqueued (default: one group, first come first served). */
  groupOf?: (key: string) => string;
}

/** The keyed queue. */
export class WorkQueue {
  /** Waiting keys by group; the Map's order is the round-robin order (a served group moves last). */
  private readonly groups = new Map<string, string[]>();
  private waiting = 0;
  private readonly queuedAt = new Map<string, number>();
  private readonly processing = new Set<string>();
  private readonly dirty = new Set<string>();
  private readonly failures = new Map<string, number>();
  private readonly delayed = new Map<string, { at: number; handle: unknown }>();
  private readonly idleWaiters: (() => void)[] = [];
  private stopped = false;
  private readonly opts: WorkQueueOptions;

  constructor(opts: WorkQueueOptions) {
    this.opts = opts;
  }

  /** Enqueues a key now (no-op if it is already waiting). */
  add(key: string): void {
    if (this.stopped) return;
    this.opts.metrics?.added();
    if (this.processing.has(key)) {
      this.dirty.add(key);
      return;
    }
    if (this.queuedAt.has(key)) return;
    this.queuedAt.set(key, this.opts.clock.now());
    const group = this.opts.groupOf?.(key) ?? "";
    const keys = this.groups.get(group);
    if (keys) keys.push(key);
    else this.groups.set(group, [key]);
    this.waiting += 1;
    this.opts.metrics?.depth(this.waiting);
    this.pump();
  }

  /** Enqueues a key after a delay; an earlier pending deadline for the same key wins. */
  addAfter(key: string, ms: number): void {
    if (this.stopped) return;
    if (ms <= 0) return this.add(key);
    const at = this.opts.clock.now() + ms;
    const prev = this.delayed.get(key);
    if (prev && prev.at <= at) return;
    if (prev) this.opts.clock.clearTimeout(prev.handle);
    const handle = this.opts.clock.setTimeout(() => {
      this.delayed.delete(key);
      this.add(key);
    }, ms);
    this.delayed.set(key, { at, handle });
  }

  /** Forgets a key's failure history (a success). */
  forget(key: string): void {
    this.failures.delete(key);
  }

  /** The backoff before retry number `attempt` (1-based). */
  backoffMs(attempt: number): number {
    return Math.min(this.opts.maxDelayMs, this.opts.baseDelayMs * 2 ** Math.max(0, attempt - 1));
  }

  get depth(): number {
    return this.waiting;
  }

  get active(): number {
    return this.processing.size;
  }

  /** Enqueue time of the oldest waiting key, for the health check. */
  oldestWaitingSince(): number | null {
    let oldest: number | null = null;
    for (const t of this.queuedAt.values()) oldest = oldest === null ? t : Math.min(oldest, t);
    return oldest;
  }

  /** Stops taking work and resolves when in-flight handlers have finished. */
  async shutdown(): Promise<void> {
    this.stopped = true;
    for (const { handle } of this.delayed.values()) this.opts.clock.clearTimeout(handle);
    this.delayed.clear();
    this.groups.clear();
    this.waiting = 0;
    this.queuedAt.clear();
    await this.idle();
  }

  /** Resolves when nothing is running or waiting (timers aside). */
  idle(): Promise<void> {
    if (this.processing.size === 0 && this.waiting === 0) return Promise.resolve();
    return new Promise((resolve) => this.idleWaiters.push(resolve));
  }

  /** The next key to run: the oldest of the group served longest ago. */
  private next(): string | undefined {
    for (const [group, keys] of this.groups) {
      const i = keys.findIndex((k) => !this.processing.has(k));
      if (i < 0) continue;
      const [key] = keys.splice(i, 1) as [string];
      this.groups.delete(group);
      if (keys.length > 0) this.groups.set(group, keys);
      this.waiting -= 1;
      return key;
    }
    return undefined;
  }

  private pump(): void {
    while (!this.stopped && this.processing.size < this.opts.concurrency) {
      const key = this.next();
      if (key === undefined) return;
      const since = this.queuedAt.get(key) ?? this.opts.clock.now();
      this.queuedAt.delete(key);
      this.opts.metrics?.depth(this.waiting);
      this.opts.metrics?.queued((this.opts.clock.now() - since) / 1000);
      void this.run(key);
    }
  }

  private async run(key: string): Promise<void> {
    this.processing.add(key);
    const start = this.opts.clock.now();
    try {
      const result = await this.opts.handler(key);
      this.forget(key);
      if (result.requeueAfterMs != null) this.addAfter(key, result.requeueAfterMs);
    } catch (err) {
      const attempt = (this.failures.get(key) ?? 0) + 1;
      this.failures.set(key, attempt);
      this.opts.metrics?.retried();
      this.opts.onError?.(key, err, attempt);
      this.addAfter(key, this.backoffMs(attempt));
    } finally {
      this.opts.metrics?.worked((this.opts.clock.now() - start) / 1000);
      this.processing.delete(key);
      if (this.dirty.delete(key)) this.add(key);
      this.pump();
      if (this.processing.size === 0 && this.waiting === 0) this.idleWaiters.splice(0).forEach((r) => r());
    }
  }
}
