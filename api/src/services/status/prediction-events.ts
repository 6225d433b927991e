/**
 * The status stream of one prediction (GET /v1/predictions/{id}/events): its current state,
 * then every change of status, processing step or progress, ending with the terminal state.
 * Changes come from the job event bus; the stream subscribes before it reads PostgreSQL, so
 * nothing applied in between is lost, and it drops what would move it backwards (a late
 * cross-replica message), since transitions only move forwards.
 */
import type { AppContext } from "../../context.ts";
import { getPrediction } from "../../db/jobs.ts";
import type { AppliedState } from "../../events/job-events.ts";
import type { JobWarning } from "@causeway/contract";

/** One event of the stream; `data` is what the SSE `data:` line carries. */
export interface PredictionEvent {
  event: "status" | "completed" | "failed";
  data: {
    prediction_id: string;
    status: AppliedState["status"];
    processing_step: string | null;
    progress_pct: number | null;
    error_code: string | null;
    error_message: string | null;
    /** On the terminal event, when the job reported any. */
    warnings?: JobWarning[];
  };
}

const RANK: Record<AppliedState["status"], number> = { pending: 0, processing: 1, completed: 2, failed: 2 };

export const isTerminal = (s: AppliedState["status"]): boolean => s === "completed" || s === "failed";

/** Whether `next` is news after `last`: a later status, or progress within `processing`. */
export function advances(last: AppliedState, next: AppliedState): boolean {
  if (isTerminal(last.status)) return false;
  if (RANK[next.status] !== RANK[last.status]) return RANK[next.status] > RANK[last.status];
  if ((next.progress_pct ?? 0) < (last.progress_pct ?? 0)) return false;
  return next.progress_pct !== last.progress_pct || next.processing_step !== last.processing_step;
}

function toEvent(s: AppliedState, warnings: JobWarning[] | null = null): PredictionEvent {
  const event: PredictionEvent = {
    event: s.status === "completed" || s.status === "failed" ? s.status : "status",
    data: {
      prediction_id: s.id,
      status: s.status,
      processing_step: s.processing_step,
      progress_pct: s.progress_pct,
      error_code: s.error_code,
      error_message: s.error_message,
    },
  };
  if (warnings && warnings.length > 0) event.data.warnings = warnings;
  return event;
}

/** The warnings of a finished prediction, read once for its terminal event. */
async function warningsOf(ctx: AppContext, accountId: string, id: string): Promise<JobWarning[] | null> {
  return (await getPrediction(ctx.db, accountId, id))?.warnings ?? null;
}

/**
 * The stream of the caller's prediction, or null when it is missing or another account's (the
 * route answers both with the same 404). Iteration ends after the terminal event, or with an
 * AbortError once `signal` aborts (the client went away, the server closes).
 */
export async function openPredictionEvents(
  ctx: AppContext,
  accountId: string,
  predictionId: string,
  signal: AbortSignal,
): Promise<AsyncGenerator<PredictionEvent> | null> {
  const stop = new AbortController();
  const onAbort = () => stop.abort();
  signal.addEventListener("abort", onAbort, { once: true });
  const changes = ctx.events.changes(predictionId, stop.signal);
  let current: (AppliedState & { warnings: JobWarning[] | null }) | null;
  try {
    current = await getPrediction(ctx.db, accountId, predictionId);
  } catch (err) {
    stop.abort();
    throw err;
  }
  if (!current) {
    stop.abort();
    signal.removeEventListener("abort", onAbort);
    return null;
  }
  const first = current;
  return (async function* stream(): AsyncGenerator<PredictionEvent> {
    try {
      let last: AppliedState = first;
      if (isTerminal(first.status)) {
        yield toEvent(first, first.warnings);
        return;
      }
      yield toEvent(last);
      for await (const [change] of changes) {
        if (change.kind !== "prediction" || change.account_id !== accountId) continue;
        const next: AppliedState = { ...change, id: change.job_id };
        if (!advances(last, next)) continue;
        last = next;
        if (isTerminal(last.status)) {
          yield toEvent(last, await warningsOf(ctx, accountId, last.id));
          return;
        }
        yield toEvent(last);
      }
    } finally {
      stop.abort();
      signal.removeEventListener("abort", onAbort);
    }
  })();
}
