import { describe, expect, it } from "vitest";
import { MemoryLimitStore } from "./memory-store.ts";

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
