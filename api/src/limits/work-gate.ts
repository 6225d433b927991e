/**
 * Expensive reads (on-demand causal graphs, large status previews) as accounted work: at most
 * `total` run at once, at most `perAccount` of them for one account, and at most
 * `queuedPerAccount` more of that account's wait. A freed slot goes to the waiter whose account
 * has the fewest items running, the earliest first among equals, so one account's burst delays
 * another account by at most the items already running. Asking beyond the share is refused at
 * once with the time after which a retry is likely to be admitted, instead of queueing without
 * bound (each waiting request holds a socket, and each running one memory). In-process: each
 * API replica renders with its own cores and memory.
 */
import { HeavyReadLimited, withRetryAfter } from "../errors.ts";

/** The heavy-read limits of the configuration (CAUSEWAY_HEAVY_READS_*). */
export interface HeavyReadLimits {
  total: number;
  perAccount: number;
  queuedPerAccount: number;
  /** Bytes of rendered results kept by request. */
  cacheBytes: number;
}

export interface WorkGateOptions {
  /** Work items running at once over all accounts. */
  total: number;
  /** Work items of one account running at once. */
  perAccount: number;
  /** Work items of one account waiting for a slot; more are refused. */
  queuedPerAccount: number;
  /** First estimate of one item's duration in ms (then a moving average of finished items). */
  expectedMs?: number;
}

/** Raised when an account asks for more than its share; `retryAfterSeconds` is a whole number ≥ 1. */
export class WorkRefused extends Error {
  readonly retryAfterSeconds: number;
  constructor(retryAfterSeconds: number) {
    super("too much expensive work for this account");
    this.name = "WorkRefused";
    this.retryAfterSeconds = retryAfterSeconds;
  }
}

interface Waiter {
  account: string;
  start: () => void;
}

export class WorkGate {
  private readonly o: Required<WorkGateOptions>;
  private readonly running = new Map<string, number>();
  /** Waiters in arrival order. */
  private readonly waiters: Waiter[] = [];
  private runningTotal = 0;
  private meanMs: number;

  constructor(options: WorkGateOptions) {
    this.o = { expectedMs: 5_000, ...options };
    this.meanMs = this.o.expectedMs;
  }

  /** Items running now (all accounts). */
  get active(): number {
    return this.runningTotal;
  }

  /** Items waiting now (all accounts). */
  get queued(): number {
    return this.waiters.length;
  }

  /**
   * Runs `work` for `account` when a slot is free; throws WorkRefused without running it when the
   * account already has its share running and waiting.
   */
  async run<T>(account: string, work: () => Promise<T>): Promise<T> {
    const mine = this.runningOf(account) + this.waiters.filter((w) => w.account === account).length;
    if (mine >= this.o.perAccount + this.o.queuedPerAccount) throw new WorkRefused(this.retryAfter(mine));
    if (this.canStart(account)) this.take(account);
    // The slot is taken on the waiter's behalf when it is chosen, before its continuation runs.
    else await new Promise<void>((start) => this.waiters.push({ account, start }));
    const started = performance.now();
    try {
      return await work();
    } finally {
      this.meanMs = 0.7 * this.meanMs + 0.3 * (performance.now() - started);
      const n = this.runningOf(account) - 1;
      if (n > 0) this.running.set(account, n);
      else this.running.delete(account);
      this.runningTotal--;
      this.startWaiters();
    }
  }

  private runningOf(account: string): number {
    return this.running.get(account) ?? 0;
  }

  private canStart(account: string): boolean {
    return this.runningTotal < this.o.total && this.runningOf(account) < this.o.perAccount;
  }

  private take(account: string): void {
    this.running.set(account, this.runningOf(account) + 1);
    this.runningTotal++;
  }

  /** Fills free slots: the waiter whose account runs the fewest items, the earliest among equals. */
  private startWaiters(): void {
    while (this.runningTotal < this.o.total) {
      let best = -1;
      for (let i = 0; i < this.waiters.length; i++) {
        const w = this.waiters[i]!;
        if (!this.canStart(w.account)) continue;
        if (best < 0 || this.runningOf(w.account) < this.runningOf(this.waiters[best]!.account)) best = i;
      }
      if (best < 0) return;
      const [w] = this.waiters.splice(best, 1);
      this.take(w!.account);
      w!.start();
    }
  }

  /** Seconds until the account's current items are likely done. */
  private retryAfter(mine: number): number {
    return Math.max(1, Math.ceil((this.meanMs * mine) / this.o.perAccount / 1000));
  }
}

/** Runs `work` under `gate`; an account over its share gets the contract's 429 with Retry-After. */
export async function underGate<T>(gate: WorkGate, accountId: string, work: () => Promise<T>): Promise<T> {
  try {
    return await gate.run(accountId, work);
  } catch (err) {
    if (err instanceof WorkRefused) throw withRetryAfter(new HeavyReadLimited(), err.retryAfterSeconds);
    throw err;
  }
}
