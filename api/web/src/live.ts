/**
 * A prediction's status kept live from its event stream (the SDK reads the SSE route with fetch).
 * A stream that drops (Wi-Fi, a proxy closing it, a server restart) is not the end: the status
 * route is read at once (a job that finished meanwhile needs no stream), then the stream is
 * opened again after a growing pause, until the job is terminal or the page leaves. Meanwhile
 * the shell shows a discreet "reconnecting…" note (`reconnecting`, read by main.tsx).
 */
import { useEffect, useState } from "preact/hooks";
import { client, CausewayError } from "./client.ts";

export interface LiveState {
  status: string;
  processing_step?: string | null | undefined;
  progress_pct?: number | null | undefined;
  error_message?: string | null | undefined;
}

const ACTIVE = new Set(["pending", "processing"]);
const TERMINAL = new Set(["completed", "failed"]);

/** The pause before the n-th reconnection (from 0): 1, 2, 4, 8, 16, then 30 s, with ±20 % jitter. */
export function reconnectDelayMs(attempt: number, random: () => number = Math.random): number {
  const base = Math.min(30_000, 1000 * 2 ** attempt);
  return Math.round(base * (0.8 + 0.4 * random()));
}

/** Ids of the streams being reconnected now, for the shell's note. */
const dropped = new Set<string>();
const listeners = new Set<(n: number) => void>();
function setReconnecting(key: string, on: boolean): void {
  const had = dropped.has(key);
  if (on === had) return;
  if (on) dropped.add(key);
  else dropped.delete(key);
  for (const fn of listeners) fn(dropped.size);
}

export const reconnecting = {
  get count(): number {
    return dropped.size;
  },
  subscribe(fn: (n: number) => void): () => void {
    listeners.add(fn);
    return () => listeners.delete(fn);
  },
};

export interface FollowDeps {
  events: (id: string, signal: AbortSignal) => AsyncIterable<{ event: string; data: LiveState }>;
  status: (id: string) => Promise<LiveState>;
  sleep?: (ms: number, signal: AbortSignal) => Promise<void>;
  random?: () => number;
}

const abortableSleep = (ms: number, signal: AbortSignal): Promise<void> =>
  new Promise((resolve) => {
    const t = setTimeout(done, ms);
    function done() {
      clearTimeout(t);
      signal.removeEventListener("abort", done);
      resolve();
    }
    signal.addEventListener("abort", done, { once: true });
  });

/** A refusal that no retry mends: the key is gone (the shell signs out) or the prediction is. */
const final = (err: unknown) =>
  err instanceof CausewayError && (err.code === "unauthorized" || err.code === "not_found");

/**
 * Follows prediction `id` until it is terminal (then `onEnd`) or `signal` aborts: the stream,
 * and after each drop the status route then the stream again, with `onReconnecting` told when
 * the stream is lost and when it is back.
 */
export async function follow(
  id: string,
  signal: AbortSignal,
  deps: FollowDeps,
  on: {
    state: (s: LiveState) => void;
    end?: ((s: LiveState) => void) | undefined;
    reconnecting: (on: boolean) => void;
  },
): Promise<void> {
  const sleep = deps.sleep ?? abortableSleep;
  const finish = (s: LiveState) => {
    on.reconnecting(false);
    on.end?.(s);
  };
  for (let attempt = 0; !signal.aborted;) {
    try {
      for await (const e of deps.events(id, signal)) {
        attempt = 0;
        on.reconnecting(false);
        on.state(e.data);
        if (e.event === "completed" || e.event === "failed" || TERMINAL.has(e.data.status))
          return finish(e.data);
      }
    } catch (err) {
      if (signal.aborted) return;
      if (final(err)) return on.reconnecting(false);
    }
    if (signal.aborted) return;
    // The stream ended before the terminal event: lost, not finished.
    on.reconnecting(true);
    try {
      const s = await deps.status(id);
      if (signal.aborted) return;
      on.state(s);
      if (TERMINAL.has(s.status)) return finish(s);
    } catch (err) {
      if (signal.aborted) return;
      if (final(err)) return on.reconnecting(false);
    }
    await sleep(reconnectDelayMs(attempt++, deps.random), signal);
  }
}

const liveDeps: FollowDeps = {
  events: (id, signal) => client().predictionEvents(id, signal),
  status: (id) => client().getPrediction(id, { max_rows: 1, max_source_influence_rows: 1, max_columns: 1 }),
};

let streams = 0;

/** Follows the stream while `initial.status` is pending or processing; calls `onEnd` at the terminal event. */
export function useLiveStatus(id: string, initial: LiveState, onEnd?: (s: LiveState) => void): LiveState {
  const [state, setState] = useState(initial);
  useEffect(() => setState(initial), [initial.status, initial.progress_pct]);
  useEffect(() => {
    if (!ACTIVE.has(initial.status)) return;
    const stop = new AbortController();
    const key = `${id}#${++streams}`;
    void follow(id, stop.signal, liveDeps, {
      state: setState,
      end: onEnd,
      reconnecting: (on) => setReconnecting(key, on),
    });
    return () => {
      stop.abort();
      setReconnecting(key, false);
    };
  }, [id, initial.status]);
  return state;
}
