import { describe, expect, it } from "vitest";
import { FakeClock } from "./clock.ts";
import { LeaderElector, MemoryLeaseStore, type LeaseStore } from "./lease.ts";

function candidate(identity: string, store: LeaseStore, clock: FakeClock) {
  const log: string[] = [];
  const elector = new LeaderElector({
    identity,
    store,
    clock,
    leaseDurationMs: 15_000,
    renewDeadlineMs: 10_000,
    retryPeriodMs: 2_000,
    onStartedLeading: () => log.push("started"),
    onStoppedLeading: () => log.push("stopped"),
  });
  return { elector, log };
}

describe("LeaderElector", () => {
  it("acquires a missing lease and renews it", async () => {
    const clock = new FakeClock(1_000_000);
    const store = new MemoryLeaseStore();
    const a = candidate("a", store, clock);
    expect(await a.elector.tryAcquireOrRenew()).toBe(true);
    expect(store.record?.holderIdentity).toBe("a");
    const acquired = store.record?.acquireTime;
    clock.advance(2_000);
    expect(await a.elector.tryAcquireOrRenew()).toBe(true);
    expect(store.record?.acquireTime).toBe(acquired);
    expect(store.record?.renewTime).toBe(new Date(1_002_000).toISOString());
    expect(store.record?.leaseTransitions).toBe(0);
  });

  it("does not take a lease another candidate renews; takes it once it expires", async () => {
    const clock = new FakeClock(0);
    const store = new MemoryLeaseStore();
    const a = candidate("a", store, clock);
    const b = candidate("b", store, clock);
    expect(await a.elector.tryAcquireOrRenew()).toBe(true);
    expect(await b.elector.tryAcquireOrRenew()).toBe(false);
    clock.advance(10_000);
    expect(await a.elector.tryAcquireOrRenew()).toBe(true);
    clock.advance(10_000);
    // b saw the record change 10 s ago: not expired yet.
    expect(await b.elector.tryAcquireOrRenew()).toBe(false);
    clock.advance(15_000);
    expect(await b.elector.tryAcquireOrRenew()).toBe(true);
    expect(store.record).toMatchObject({ holderIdentity: "b", leaseTransitions: 1 });
  });

  it("lets exactly one of two racing candidates win (resourceVersion)", async () => {
    const clock = new FakeClock(0);
    const store = new MemoryLeaseStore();
    const results = await Promise.all(
      [candidate("a", store, clock), candidate("b", store, clock)].map((c) => c.elector.tryAcquireOrRenew()),
    );
    expect(results.filter(Boolean)).toHaveLength(1);
  });

  it("steps down when renewal fails past the renew deadline, and a successor takes over", async () => {
    const clock = new FakeClock(0);
    const store = new MemoryLeaseStore();
    const a = candidate("a", store, clock);
    a.elector.start();
    await new Promise((r) => setImmediate(r));
    expect(a.log).toEqual(["started"]);
    // Another writer steals the record behind a's back: a's renewals now conflict.
    store.record = { ...store.record!, holderIdentity: "x", resourceVersion: "999" };
    for (let t = 0; t < 6; t++) {
      clock.advance(2_000);
      await new Promise((r) => setImmediate(r));
    }
    expect(a.log).toEqual(["started", "stopped"]);
    await a.elector.release();
  });

  it("release hands the lease back so a successor need not wait", async () => {
    const clock = new FakeClock(0);
    const store = new MemoryLeaseStore();
    const a = candidate("a", store, clock);
    const b = candidate("b", store, clock);
    a.elector.start();
    await new Promise((r) => setImmediate(r));
    await a.elector.release();
    expect(store.record?.holderIdentity).toBeNull();
    expect(await b.elector.tryAcquireOrRenew()).toBe(true);
  });
});
