/**
 * What a section shows until its data arrives: "Loading …", or, while the page's requests wait
 * on the request limit, that it is waiting and for about how long, so a section is never
 * silently empty.
 */
import { useEffect, useState } from "preact/hooks";
import { limitWait } from "../client.ts";

/** Seconds the page's requests still wait on the limit, or null; updated every second. */
export function useLimitWait(): number | null {
  const [until, setUntil] = useState(limitWait.until);
  const [, tick] = useState(0);
  useEffect(() => limitWait.subscribe(setUntil), []);
  useEffect(() => {
    if (until === null) return;
    const t = setInterval(() => tick((n) => n + 1), 1000);
    return () => clearInterval(t);
  }, [until]);
  return until === null ? null : Math.max(1, Math.ceil((until - Date.now()) / 1000));
}

export function Pending({ what, class: cls = "muted" }: { what: string; class?: string }) {
  const wait = useLimitWait();
  return (
    <p class={cls} data-testid="pending" aria-live="polite">
      {wait === null
        ? `Loading ${what}…`
        : `Waiting for the request limit (30 a minute per address): ${what} will load in about ${wait} s.`}
    </p>
  );
}
