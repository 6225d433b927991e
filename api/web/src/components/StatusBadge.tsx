/**
 * A job status as a coloured word, a progress bar while it runs, and a polite live region that
 * tells screen-reader users when the status changes (and, now and then, how far it has got).
 */
import { useEffect, useRef, useState } from "preact/hooks";
import { announcement, type Announced, type JobState } from "./announce.ts";
export function StatusBadge({ status, testid }: { status: string; testid?: string }) {
  return (
    <span class={`badge badge-${status}`} data-testid={testid}>
      {status}
    </span>
  );
}

export function Progress({
  pct,
  step,
}: {
  pct: number | null | undefined;
  step?: string | null | undefined;
}) {
  const value = Math.max(0, Math.min(100, pct ?? 0));
  return (
    <div class="progress-wrap">
      <div
        class="progress"
        role="progressbar"
        aria-valuemin={0}
        aria-valuemax={100}
        aria-valuenow={value}
        aria-label="Progress"
      >
        <div class="progress-bar" style={{ width: `${value}%` }} />
      </div>
      <span class="progress-text">
        {value}%{step ? ` · ${step.replaceAll("_", " ")}` : ""}
      </span>
    </div>
  );
}

/**
 * A visually hidden `role="status"` region that says each change of the job's status and its
 * progress now and then (announce.ts). It is on the page from the start, so that what it later
 * says is announced.
 */
export function JobAnnouncer({ state, testid = "job-announcer" }: { state: JobState; testid?: string }) {
  const last = useRef<Announced | null>(null);
  const [text, setText] = useState("");
  useEffect(() => {
    const r = announcement(last.current, state, Date.now());
    last.current = r.last;
    if (r.text) setText(r.text);
  }, [state.status, state.pct, state.step]);
  return (
    <div class="sr-only" role="status" aria-live="polite" aria-atomic="true" data-testid={testid}>
      {text}
    </div>
  );
}
