/** A prediction's status kept live from its event stream (the SDK reads the SSE route with fetch). */
import { useEffect, useState } from "preact/hooks";
import { client } from "./client.ts";

export interface LiveState {
  status: string;
  processing_step?: string | null | undefined;
  progress_pct?: number | null | undefined;
  error_message?: string | null | undefined;
}

const ACTIVE = new Set(["pending", "processing"]);

/** Follows the stream while `initial.status` is pending or processing; calls `onEnd` at the terminal event. */
export function useLiveStatus(id: string, initial: LiveState, onEnd?: (s: LiveState) => void): LiveState {
  const [state, setState] = useState(initial);
  useEffect(() => setState(initial), [initial.status, initial.progress_pct]);
  useEffect(() => {
    if (!ACTIVE.has(initial.status)) return;
    const stop = new AbortController();
    void (async () => {
      try {
        for await (const e of client().predictionEvents(id, stop.signal)) {
          setState(e.data);
          if (e.event === "completed" || e.event === "failed") {
            onEnd?.(e.data);
            return;
          }
        }
      } catch {
        // The stream closed (navigation, server restart); the page still shows the last state.
      }
    })();
    return () => stop.abort();
  }, [id, initial.status]);
  return state;
}
