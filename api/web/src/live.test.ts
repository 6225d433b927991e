import { describe, expect, it } from "vitest";
import { CausewayError } from "@causeway/api/client/errors";
import { follow, reconnectDelayMs, type FollowDeps, type LiveState } from "./live.ts";

type Ev = { event: string; data: LiveState };

/** A stream that yields `events` then fails (a dropped connection) unless `end` says it closes cleanly. */
async function* stream(events: Ev[], fail: boolean): AsyncGenerator<Ev> {
  for (const e of events) yield e;
  if (fail) throw new CausewayError("network_error", "cannot reach the service", 0);
}

function harness(streams: (() => AsyncIterable<Ev>)[], statuses: (LiveState | Error)[]) {
  const log: string[] = [];
  const pauses: number[] = [];
  const deps: FollowDeps = {
    events: () => {
      log.push("stream");
      const next = streams.shift();
      if (!next) throw new Error("no more streams");
      return next();
    },
    status: () => {
      log.push("status");
      const s = statuses.shift();
      return s instanceof Error ? Promise.reject(s) : Promise.resolve(s ?? { status: "processing" });
    },
    sleep: (ms) => {
      pauses.push(ms);
      return Promise.resolve();
    },
    random: () => 0.5,
  };
  const states: string[] = [];
  const reconnecting: boolean[] = [];
  let ended: LiveState | null = null;
  const on = {
    state: (s: LiveState) => states.push(`${s.status}${s.progress_pct ?? ""}`),
    end: (s: LiveState) => (ended = s),
    reconnecting: (r: boolean) => reconnecting.push(r),
  };
  return { deps, on, log, pauses, states, reconnecting, ended: () => ended };
}

describe("a prediction followed live", () => {
  it("ends at the terminal event of an unbroken stream", async () => {
    const h = harness(
      [
        () =>
          stream(
            [
              { event: "status", data: { status: "processing", progress_pct: 40 } },
              { event: "completed", data: { status: "completed" } },
            ],
            false,
          ),
      ],
      [],
    );
    await follow("p", new AbortController().signal, h.deps, h.on);
    expect(h.states).toEqual(["processing40", "completed"]);
    expect(h.ended()).toEqual({ status: "completed" });
    expect(h.log).toEqual(["stream"]);
  });

  it("after a drop, reads the status route, says it is reconnecting, and opens the stream again", async () => {
    const h = harness(
      [
        () => stream([{ event: "status", data: { status: "pending", progress_pct: 0 } }], true),
        () => stream([], true),
        () =>
          stream(
            [
              { event: "status", data: { status: "processing", progress_pct: 80 } },
              { event: "completed", data: { status: "completed" } },
            ],
            false,
          ),
      ],
      [{ status: "processing", progress_pct: 20 }, new CausewayError("network_error", "offline", 0)],
    );
    await follow("p", new AbortController().signal, h.deps, h.on);
    expect(h.log).toEqual(["stream", "status", "stream", "status", "stream"]);
    expect(h.states).toEqual(["pending0", "processing20", "processing80", "completed"]);
    expect(h.pauses).toEqual([1000, 2000]);
    expect(h.reconnecting[0]).toBe(false);
    expect(h.reconnecting).toContain(true);
    expect(h.reconnecting.at(-1)).toBe(false);
    expect(h.ended()).toEqual({ status: "completed" });
  });

  it("stops when the status route says the job finished while the stream was down", async () => {
    const h = harness([() => stream([], true)], [{ status: "completed" }]);
    await follow("p", new AbortController().signal, h.deps, h.on);
    expect(h.log).toEqual(["stream", "status"]);
    expect(h.ended()).toEqual({ status: "completed" });
    expect(h.reconnecting.at(-1)).toBe(false);
  });

  it("treats a stream closed before the terminal event as lost, not finished", async () => {
    const h = harness([() => stream([], false)], [{ status: "failed", error_message: "x" }]);
    await follow("p", new AbortController().signal, h.deps, h.on);
    expect(h.log).toEqual(["stream", "status"]);
    expect(h.ended()?.status).toBe("failed");
  });

  it("gives up on a refused key or a deleted prediction, and when the page leaves", async () => {
    const h = harness([() => stream([], true)], [new CausewayError("unauthorized", "no", 401)]);
    await follow("p", new AbortController().signal, h.deps, h.on);
    expect(h.log).toEqual(["stream", "status"]);
    expect(h.ended()).toBeNull();
    expect(h.reconnecting.at(-1)).toBe(false);

    const stop = new AbortController();
    const g = harness([() => stream([], true)], [{ status: "processing" }]);
    g.deps.sleep = () => {
      stop.abort();
      return Promise.resolve();
    };
    await follow("p", stop.signal, g.deps, g.on);
    expect(g.log).toEqual(["stream", "status"]);
  });

  it("backs off 1, 2, 4 … up to 30 s", () => {
    expect([0, 1, 2, 3, 4, 5, 9].map((a) => reconnectDelayMs(a, () => 0.5))).toEqual([
      1000, 2000, 4000, 8000, 16_000, 30_000, 30_000,
    ]);
  });
});
