/**
 * Leader election on a coordination.k8s.io/v1 Lease, after client-go's leaderelection:
 * acquire when the record is free or expired, renew every retry period, give up leadership
 * when renewal has failed for `renewDeadline`, release on shutdown. Writes carry the
 * resourceVersion read, so two candidates racing for the same record cannot both win.
 * Expiry is judged from when *this* process last saw the record change, not from the
 * holder's timestamps, so clock skew between nodes does not matter.
 */
import type { Clock } from "./clock.ts";

/** The Lease fields election uses. */
export interface LeaseRecord {
  holderIdentity: string | null;
  leaseDurationSeconds: number;
  acquireTime: string | null;
  renewTime: string | null;
  leaseTransitions: number;
  resourceVersion?: string;
}

/** Thrown by a store when the write lost an optimistic-concurrency race (HTTP 409). */
export class LeaseConflict extends Error {
  constructor() {
    super("lease was modified concurrently");
    this.name = "LeaseConflict";
  }
}

/** Storage of one Lease object. */
export interface LeaseStore {
  get(): Promise<LeaseRecord | null>;
  create(record: LeaseRecord): Promise<LeaseRecord>;
  /** Replaces the record if its resourceVersion still matches; throws LeaseConflict otherwise. */
  update(record: LeaseRecord): Promise<LeaseRecord>;
}

/** Options of {@link LeaderElector}; durations as in client-go (15 s / 10 s / 2 s by default in main.ts). */
export interface LeaderElectorOptions {
  identity: string;
  store: LeaseStore;
  clock: Clock;
  leaseDurationMs: number;
  renewDeadlineMs: number;
  retryPeriodMs: number;
  onStartedLeading: () => void;
  onStoppedLeading: () => void;
  onError?: (err: unknown) => void;
}

/** One candidate. */
export class LeaderElector {
  private readonly o: LeaderElectorOptions;
  private observed: LeaseRecord | null = null;
  private observedAt = 0;
  private lastRenewAt = 0;
  private leading = false;
  private stopped = false;
  private timer: unknown = null;

  constructor(options: LeaderElectorOptions) {
    this.o = options;
  }

  get isLeader(): boolean {
    return this.leading;
  }

  /** Starts the acquire/renew loop. */
  start(): void {
    this.stopped = false;
    void this.tick();
  }

  /** One acquire-or-renew attempt; true when this candidate holds the lease afterwards. */
  async tryAcquireOrRenew(): Promise<boolean> {
    const now = this.o.clock.now();
    const iso = new Date(now).toISOString();
    const current = await this.o.store.get();
    const desired: LeaseRecord = {
      holderIdentity: this.o.identity,
      leaseDurationSeconds: Math.ceil(this.o.leaseDurationMs / 1000),
      acquireTime: iso,
      renewTime: iso,
      leaseTransitions: 0,
    };
    try {
      if (!current) {
        this.remember(await this.o.store.create(desired), now);
        return true;
      }
      if (!sameRecord(current, this.observed)) {
        this.observed = current;
        this.observedAt = now;
      }
      const held = current.holderIdentity !== null && current.holderIdentity !== "";
      const mine = current.holderIdentity === this.o.identity;
      const expired = this.observedAt + current.leaseDurationSeconds * 1000 <= now;
      if (held && !mine && !expired) return false;
      const next: LeaseRecord = {
        ...desired,
        resourceVersion: current.resourceVersion,
        acquireTime: mine ? current.acquireTime : iso,
        leaseTransitions: mine ? current.leaseTransitions : current.leaseTransitions + 1,
      };
      this.remember(await this.o.store.update(next), now);
      return true;
    } catch (err) {
      if (err instanceof LeaseConflict) return false;
      throw err;
    }
  }

  /** Stops the loop and, when leading, hands the lease back so a successor need not wait for expiry. */
  async release(): Promise<void> {
    this.stopped = true;
    if (this.timer !== null) this.o.clock.clearTimeout(this.timer);
    if (!this.leading || !this.observed) return;
    this.setLeading(false);
    try {
      await this.o.store.update({
        ...this.observed,
        holderIdentity: null,
        leaseDurationSeconds: 1,
        renewTime: new Date(this.o.clock.now()).toISOString(),
      });
    } catch (err) {
      this.o.onError?.(err);
    }
  }

  private remember(record: LeaseRecord, now: number): void {
    this.observed = record;
    this.observedAt = now;
    this.lastRenewAt = now;
  }

  private setLeading(leading: boolean): void {
    if (leading === this.leading) return;
    this.leading = leading;
    if (leading) this.o.onStartedLeading();
    else this.o.onStoppedLeading();
  }

  private async tick(): Promise<void> {
    if (this.stopped) return;
    let ok = false;
    try {
      ok = await this.tryAcquireOrRenew();
    } catch (err) {
      this.o.onError?.(err);
    }
    if (this.stopped) return;
    if (ok) this.setLeading(true);
    else if (this.leading && this.o.clock.now() - this.lastRenewAt >= this.o.renewDeadlineMs)
      this.setLeading(false);
    // Jitter the retry so candidates do not move in lockstep.
    const delay = this.o.retryPeriodMs * (this.leading ? 1 : 1 + Math.random() * 0.2);
    this.timer = this.o.clock.setTimeout(() => void this.tick(), delay);
  }
}

function sameRecord(a: LeaseRecord, b: LeaseRecord | null): boolean {
  return (
    b !== null &&
    a.holderIdentity === b.holderIdentity &&
    a.renewTime === b.renewTime &&
    a.resourceVersion === b.resourceVersion
  );
}

/** An in-memory LeaseStore with resourceVersion checks: the fake for tests, and a reference for the real one. */
export class MemoryLeaseStore implements LeaseStore {
  record: LeaseRecord | null = null;
  private version = 0;

  async get(): Promise<LeaseRecord | null> {
    return this.record ? { ...this.record } : null;
  }

  async create(record: LeaseRecord): Promise<LeaseRecord> {
    if (this.record) throw new LeaseConflict();
    this.record = { ...record, resourceVersion: String(++this.version) };
    return { ...this.record };
  }

  async update(record: LeaseRecord): Promise<LeaseRecord> {
    if (!this.record || record.resourceVersion !== this.record.resourceVersion) throw new LeaseConflict();
    this.record = { ...record, resourceVersion: String(++this.version) };
    return { ...this.record };
  }
}
