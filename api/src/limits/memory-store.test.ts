import { describe, expect, it } from "vitest";
import { MemoryLimitStore, SlidingWindowLog } from "./memory-store.ts";

describe("MemoryLimitStore", () => {
  it("slides a window and reports when the next request is admitted", async () => {
    const s = new MemoryLimitStore();
    for (let i = 0; i < 3; i++) expect((await s.hit("k", 3, 60_000, 1000 + i)).allowed).toBe(true);
    const refused = await s.hit("k", 3, 60_000, 30_000);
    expect(refused).toEqual({ allowed: false, retryAfterSeconds: 31 });
    expect((await s.hit("k", 3, 60_000, 61_001)).allowed).toBe(true);
    await s.close();
  });

  it("reserves up to the limit, refreshes a held member, expires and releases", async () => {
    const s = new MemoryLimitStore();
    expect(await s.reserve("set", "a", 1, 1000, 0)).toBe(true);
    expect(await s.reserve("set", "b", 1, 1000, 10)).toBe(false);
    expect(await s.reserve("set", "a", 1, 1000, 500)).toBe(true); // refresh to 1500
    expect(await s.reserve("set", "b", 1, 1000, 1200)).toBe(false);
    expect(await s.reserve("set", "b", 1, 1000, 1600)).toBe(true); // a expired
    await s.release("set", "b");
    await s.release("set", "b");
    expect(await s.reservations("set", 1700)).toEqual([]);
    await s.close();
  });
});

describe("SlidingWindowLog", () => {
  it("expires an admitted request exactly windowMs after it, not a millisecond earlier", () => {
    const w = new SlidingWindowLog(1);
    expect(w.hit(2, 1000, 0).allowed).toBe(true);
    expect(w.hit(2, 1000, 400).allowed).toBe(true);
    expect(w.hit(2, 1000, 999)).toEqual({ allowed: false, retryAfterSeconds: 1 });
    expect(w.hit(2, 1000, 1000).allowed).toBe(true); // 0 left the window (now - window = 0)
    expect(w.hit(2, 1000, 1399)).toEqual({ allowed: false, retryAfterSeconds: 1 });
    expect(w.hit(2, 1000, 1400).allowed).toBe(true);
  });

  it("agrees with the plain log of admitted times on a long random sequence across wrap-arounds", () => {
    let seed = 7;
    const rand = () => (seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31;
    for (const [limit, windowMs] of [
      [1, 50],
      [5, 1000],
      [64, 60_000],
    ] as const) {
      const w = new SlidingWindowLog();
      let log: number[] = [];
      let now = 0;
      for (let i = 0; i < 20_000; i++) {
        now += Math.floor(rand() * (windowMs / limit) * 2);
        log = log.filter((t) => t > now - windowMs);
        const want =
          log.length < limit
            ? { allowed: true, retryAfterSeconds: 0 }
            : {
                allowed: false,
                retryAfterSeconds: Math.max(1, Math.ceil((log[0]! + windowMs - now) / 1000)),
              };
        if (want.allowed) log.push(now);
        expect(w.hit(limit, windowMs, now)).toEqual(want);
      }
    }
  });

  it("holds at most `limit` times however many requests arrive", () => {
    const w = new SlidingWindowLog();
    for (let i = 0; i < 100_000; i++) w.hit(10, 60_000, i);
    expect((w as unknown as { times: Float64Array }).times.length).toBe(10);
  });
});
