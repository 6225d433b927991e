/**
 * What a polite live region says about a running job: every change of status, and progress only
 * now and then (a screen reader that spoke every percent would drown the page). Pure, so that the
 * throttle is tested without a browser.
 */

export interface JobState {
  status: string;
  pct: number | null | undefined;
  step?: string | null | undefined;
}

export interface Announced {
  status: string;
  pct: number;
  at: number;
}

/** Progress is said again after this many percentage points… */
export const PROGRESS_STEP = 20;
/** …and never sooner than this after the last announcement. */
export const MIN_INTERVAL_MS = 10_000;

const stepText = (step: string | null | undefined) => (step ? ` (${step.replaceAll("_", " ")})` : "");

/** The sentence a status on its own says. */
export function statusSentence(s: JobState): string {
  switch (s.status) {
    case "completed":
      return "The prediction is complete: the ranked targets are on the page.";
    case "failed":
      return "The prediction failed.";
    case "processing":
      return `The prediction is running: ${Math.round(s.pct ?? 0)} % done${stepText(s.step)}.`;
    case "pending":
      return "The prediction is waiting to start.";
    default:
      return `The prediction is ${s.status}.`;
  }
}

/**
 * The sentence to announce for `next`, given what was announced last (`last`, null at first), at
 * time `now`; null when nothing is worth saying. The first state is not announced (it is what
 * the page shows on arrival), a new status always is, progress every `PROGRESS_STEP` points at
 * most every `MIN_INTERVAL_MS`.
 */
export function announcement(
  last: Announced | null,
  next: JobState,
  now: number,
): { text: string | null; last: Announced } {
  const pct = Math.round(next.pct ?? 0);
  const mark = { status: next.status, pct, at: now };
  // Nothing is said of the state the page finds on arrival (or while it is not known yet).
  if (last === null || last.status === "unknown") return { text: null, last: mark };
  if (next.status !== last.status) return { text: statusSentence(next), last: mark };
  if (next.status === "processing" && pct - last.pct >= PROGRESS_STEP && now - last.at >= MIN_INTERVAL_MS)
    return { text: statusSentence(next), last: mark };
  return { text: null, last };
}
