import { afterEach, describe, expect, it, vi } from "vitest";
import { RenderCache } from "./render-cache.ts";

afterEach(() => {
  vi.useRealTimers();
});

describe("RenderCache", () => {
  it("makes a key once for readers arriving together and serves repeats from memory", async () => {
    const cache = new RenderCache<Buffer>({ maxBytes: 100, idleMs: 1000, sizeOf: (b) => b.length });
    let made = 0;
    const make = async () => {
      made++;
      await new Promise((r) => setTimeout(r, 5));
      return Buffer.alloc(10);
    };
    const [x, y] = await Promise.all([cache.get("k", make), cache.get("k", make)]);
    expect(x).toBe(y);
    expect(await cache.get("k", make)).toBe(x);
    expect(made).toBe(1);
  });

  it("does not keep a failure", async () => {
    const cache = new RenderCache<Buffer>({ maxBytes: 100, idleMs: 1000, sizeOf: (b) => b.length });
    await expect(cache.get("k", () => Promise.reject(new Error("no")))).rejects.toThrow("no");
    expect(cache.size).toBe(0);
    expect((await cache.get("k", async () => Buffer.alloc(1))).length).toBe(1);
  });

  it("drops the least recently used past its byte budget, and entries left idle", async () => {
    vi.useFakeTimers();
    const cache = new RenderCache<Buffer>({ maxBytes: 25, idleMs: 1000, sizeOf: (b) => b.length });
    await cache.get("a", async () => Buffer.alloc(10));
    await cache.get("b", async () => Buffer.alloc(10));
    cache.peek("a");
    await cache.get("c", async () => Buffer.alloc(10));
    expect(cache.peek("b")).toBeUndefined();
    expect(cache.peek("a")).toBeDefined();
    // Larger than the whole budget: served, not kept.
    await cache.get("huge", async () => Buffer.alloc(26));
    expect(cache.peek("huge")).toBeUndefined();
    vi.advanceTimersByTime(2100);
    expect(cache.size).toBe(0);
  });
});
