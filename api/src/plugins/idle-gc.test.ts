import {
  PerformanceObserver,
  constants,
  type NodeGCPerformanceDetail,
  type PerformanceEntry,
} from "node:perf_hooks";
import Fastify, { type FastifyInstance } from "fastify";
import { afterEach, describe, expect, it } from "vitest";
import { fullGc, registerIdleGc } from "./idle-gc.ts";

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe("idle collection", () => {
  let app: FastifyInstance | undefined;
  afterEach(() => app?.close());

  async function appCounting(idleMs: number): Promise<{ app: FastifyInstance; calls: () => number }> {
    let calls = 0;
    const a = Fastify();
    registerIdleGc(a, { idleMs, collect: () => calls++ });
    a.get("/v1/thing", async () => ({ ok: true }));
    a.get("/health", async () => ({ status: "ok" }));
    await a.ready();
    return { app: a, calls: () => calls };
  }

  it("collects once after a quiet period, not while requests keep coming", async () => {
    // Requests 50 ms apart against a 1 s quiet period: wide margins for a loaded machine.
    const s = await appCounting(1000);
    app = s.app;
    for (let i = 0; i < 30; i++) {
      await app.inject("/v1/thing");
      await sleep(50);
    }
    expect(s.calls()).toBe(0);
    await sleep(1500);
    expect(s.calls()).toBe(1);
    // Quiet stays quiet: one collection, not one per period.
    await sleep(1500);
    expect(s.calls()).toBe(1);
  });

  it("does not count probes as activity", async () => {
    const s = await appCounting(200);
    app = s.app;
    await app.inject("/v1/thing");
    for (let i = 0; i < 8; i++) {
      await app.inject("/health");
      await sleep(50);
    }
    await sleep(200);
    expect(s.calls()).toBe(1);
  });

  it("runs a full (mark-compact) collection by default", async () => {
    const majors: number[] = [];
    const observer = new PerformanceObserver((list) => {
      for (const e of list.getEntries())
        if (
          (e as PerformanceEntry & { detail: NodeGCPerformanceDetail }).detail.kind ===
          constants.NODE_PERFORMANCE_GC_MAJOR
        )
          majors.push(1);
    });
    observer.observe({ entryTypes: ["gc"] });
    fullGc()();
    await sleep(50);
    observer.disconnect();
    expect(majors.length).toBeGreaterThan(0);
  });
});
