import { describe, expect, it } from "vitest";
import { FakeClock } from "./clock.ts";
import { WorkQueue, type HandlerResult } from "./queue.ts";

/** A handler whose calls stay open until the test resolves them. */
function gate() {
  const calls: { key: string; resolve: (r?: HandlerResult) => void; reject: (e: Error) => void }[] = [];
  const handler = (key: string) =>
    new Promise<HandlerResult>((resolve, reject) =>
      calls.push({ key, resolve: (r) => resolve(r ?? {}), reject }),
    );
  return { calls, handler };
}

const flush = () => new Promise((r) => setImmediate(r));

describe("WorkQueue: keys and concurrency", () => {
  it("de-duplicates a key that is already waiting", async () => {
    const clock = new FakeClock();
    const { calls, handler } = gate();
    const q = new WorkQueue({ concurrency: 1, baseDelayMs: 10, maxDelayMs: 1000, clock, handler });
    q.add("busy");
    q.add("a");
    q.add("a");
    q.add("a");
    expect(q.depth).toBe(1);
    calls[0]?.resolve();
    await flush();
    calls[1]?.resolve();
    await flush();
    expect(calls.map((c) => c.key)).toEqual(["busy", "a"]);
  });

  it("serialises one key: a change during processing runs once more afterwards, never concurrently", async () => {
    const clock = new FakeClock();
    const { calls, handler } = gate();
    const q = new WorkQueue({ concurrency: 4, baseDelayMs: 10, maxDelayMs: 1000, clock, handler });
    q.add("a");
    q.add("a");
    q.add("a");
    expect(calls).toHaveLength(1);
    expect(q.active).toBe(1);
    calls[0]?.resolve();
    await flush();
    expect(calls).toHaveLength(2);
    calls[1]?.resolve();
    await flush();
    expect(calls).toHaveLength(2);
  });

  it("caps concurrency", () => {
    const clock = new FakeClock();
    const { calls, handler } = gate();
    const q = new WorkQueue({ concurrency: 2, baseDelayMs: 10, maxDelayMs: 1000, clock, handler });
    for (const k of ["a", "b", "c", "d"]) q.add(k);
    expect(calls.map((c) => c.key)).toEqual(["a", "b"]);
    expect(q.depth).toBe(2);
  });
});

describe("WorkQueue: delays and shutdown", () => {
  it("backs off exponentially on failure and resets after a success", async () => {
    const clock = new FakeClock();
    const { calls, handler } = gate();
    const errors: number[] = [];
    const q = new WorkQueue({
      concurrency: 1,
      baseDelayMs: 100,
      maxDelayMs: 350,
      clock,
      handler,
      onError: (_k, _e, attempt) => errors.push(attempt),
    });
    expect([1, 2, 3, 4].map((n) => q.backoffMs(n))).toEqual([100, 200, 350, 350]);
    q.add("a");
    calls[0]?.reject(new Error("boom"));
    await flush();
    clock.advance(99);
    expect(calls).toHaveLength(1);
    clock.advance(1);
    expect(calls).toHaveLength(2);
    calls[1]?.reject(new Error("boom"));
    await flush();
    clock.advance(199);
    expect(calls).toHaveLength(2);
    clock.advance(1);
    expect(calls).toHaveLength(3);
    calls[2]?.resolve({ requeueAfterMs: 1000 });
    await flush();
    expect(errors).toEqual([1, 2]);
    clock.advance(1000);
    expect(calls).toHaveLength(4);
    calls[3]?.reject(new Error("again"));
    await flush();
    expect(errors).toEqual([1, 2, 1]);
  });

  it("keeps the earliest of two delayed adds", () => {
    const clock = new FakeClock();
    const { calls, handler } = gate();
    const q = new WorkQueue({ concurrency: 1, baseDelayMs: 10, maxDelayMs: 1000, clock, handler });
    q.addAfter("a", 500);
    q.addAfter("a", 100);
    q.addAfter("a", 900);
    clock.advance(100);
    expect(calls).toHaveLength(1);
    expect(clock.pendingTimers()).toBe(0);
  });

  it("shutdown waits for in-flight work and drops the rest", async () => {
    const clock = new FakeClock();
    const { calls, handler } = gate();
    const q = new WorkQueue({ concurrency: 1, baseDelayMs: 10, maxDelayMs: 1000, clock, handler });
    q.add("a");
    q.add("b");
    q.addAfter("c", 10);
    let done = false;
    const stopping = q.shutdown().then(() => (done = true));
    await flush();
    expect(done).toBe(false);
    calls[0]?.resolve();
    await stopping;
    expect(calls.map((c) => c.key)).toEqual(["a"]);
  });
});

describe("WorkQueue: fairness across groups", () => {
  it("takes waiting keys round-robin across groups, first come first served within one", async () => {
    const clock = new FakeClock();
    const { calls, handler } = gate();
    const groupOf = (key: string) => key.split(":")[0] ?? "";
    const q = new WorkQueue({ concurrency: 1, baseDelayMs: 10, maxDelayMs: 1000, clock, handler, groupOf });
    q.add("busy:0");
    for (let i = 1; i <= 5; i++) q.add(`a:${i}`);
    q.add("b:1");
    q.add("c:1");
    q.add("b:2");
    expect(q.depth).toBe(8);
    for (let i = 0; i < 9; i++) {
      calls[i]?.resolve();
      await flush();
    }
    // b and c each wait behind at most one of a's five, not behind all of them.
    expect(calls.map((c) => c.key)).toEqual([
      "busy:0",
      "a:1",
      "b:1",
      "c:1",
      "a:2",
      "b:2",
      "a:3",
      "a:4",
      "a:5",
    ]);
    expect(q.depth).toBe(0);
  });
});
