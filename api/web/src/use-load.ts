/**
 * One asynchronous read of a section: loading, its value, or a sentence saying what failed. A read
 * that failed because the service could not be reached can be tried again (`retry`), and is, by
 * itself, when the browser comes back online.
 */
import { useEffect, useState } from "preact/hooks";
import { explain, retryable } from "./explain.ts";

export type Loaded<T> =
  | { state: "loading" }
  | { state: "ok"; value: T }
  | { state: "error"; error: string; retry?: (() => void) | undefined };

/** Runs again, once, when the browser's 'online' event fires while `when` holds. */
export function useRetryWhenOnline(when: boolean, retry: () => void): void {
  useEffect(() => {
    if (!when) return;
    const online = () => retry();
    window.addEventListener("online", online, { once: true });
    return () => window.removeEventListener("online", online);
  }, [when]);
}

/** Runs `load` when a dependency changes (not when `enabled` is false); stale answers are dropped. */
export function useLoad<T>(load: () => Promise<T>, deps: unknown[], enabled = true): Loaded<T> {
  const [result, setResult] = useState<Loaded<T>>({ state: "loading" });
  const [attempt, setAttempt] = useState(0);
  const again = () => setAttempt((a) => a + 1);
  useEffect(() => {
    if (!enabled) return;
    let live = true;
    setResult({ state: "loading" });
    load().then(
      (value) => live && setResult({ state: "ok", value }),
      (err: unknown) =>
        live && setResult({ state: "error", error: explain(err), retry: retryable(err) ? again : undefined }),
    );
    return () => {
      live = false;
    };
  }, [...deps, enabled, attempt]);
  useRetryWhenOnline(result.state === "error" && result.retry !== undefined, again);
  return result;
}
