/** One asynchronous read of a section: loading, its value, or a sentence saying what failed. */
import { useEffect, useState } from "preact/hooks";
import { explain } from "./explain.ts";

export type Loaded<T> = { state: "loading" } | { state: "ok"; value: T } | { state: "error"; error: string };

/** Runs `load` when a dependency changes (not when `enabled` is false); stale answers are dropped. */
export function useLoad<T>(load: () => Promise<T>, deps: unknown[], enabled = true): Loaded<T> {
  const [result, setResult] = useState<Loaded<T>>({ state: "loading" });
  useEffect(() => {
    if (!enabled) return;
    let live = true;
    setResult({ state: "loading" });
    load().then(
      (value) => live && setResult({ state: "ok", value }),
      (err: unknown) => live && setResult({ state: "error", error: explain(err) }),
    );
    return () => {
      live = false;
    };
  }, [...deps, enabled]);
  return result;
}
