import { setTimeout as sleep } from "node:timers/promises";
import { gunzipSync } from "node:zlib";
import { describe, expect, it } from "vitest";
import type { GzipRequest, GzipResponse } from "./status-gzip-worker.ts";
import { WorkerCalls } from "./worker-calls.ts";

describe("WorkerCalls", () => {
  it("starts its worker on the first call, ends it when idle, and starts a fresh one for the next call", async () => {
    const calls = new WorkerCalls<GzipRequest, GzipResponse>(
      new URL("./status-gzip-worker.ts", import.meta.url),
      300,
    );
    try {
      expect(calls.running).toBe(false);
      const bytes = Buffer.from("status body ".repeat(1000));
      const first = await calls.call({ bytes });
      expect(first.ok && Buffer.from(gunzipSync(first.gzipped)).equals(bytes)).toBe(true);
      expect(calls.running).toBe(true);
      await sleep(1_000);
      expect(calls.running).toBe(false);
      const again = await calls.call({ bytes });
      expect(again.ok && Buffer.from(gunzipSync(again.gzipped)).equals(bytes)).toBe(true);
    } finally {
      await calls.close();
    }
  });

  it("ends a worker after its recycleAfter calls are answered, and starts a fresh one", async () => {
    const calls = new WorkerCalls<GzipRequest, GzipResponse>(
      new URL("./status-gzip-worker.ts", import.meta.url),
      60_000,
      2,
    );
    try {
      const bytes = Buffer.from("x".repeat(100));
      const [a, b] = await Promise.all([calls.call({ bytes }), calls.call({ bytes })]);
      expect(a.ok && b.ok).toBe(true);
      expect(calls.running).toBe(false);
      expect(calls.pending).toBe(0);
      // The retired worker's exit, arriving after the next call went out, fails only its own calls.
      const next = await Promise.all([calls.call({ bytes }), calls.call({ bytes })]);
      expect(next.map((r) => r.ok)).toEqual([true, true]);
      const third = await calls.call({ bytes });
      expect(third.ok).toBe(true);
    } finally {
      await calls.close();
    }
  });
});
