/** A pending job that waits for its model version's import says so in its processing step. */
import type { JobKind } from "@causeway/contract";
import type { Queryable } from "./database.ts";
import type { TransitionResult } from "./jobs.ts";

const TABLE: Record<JobKind, string> = { prediction: "predictions", causal_analysis: "causal_analyses" };

/** Sets the step of a still pending, not yet started job; null when it has moved on. */
export async function markWaiting(
  db: Queryable,
  kind: JobKind,
  id: string,
  step: string,
): Promise<TransitionResult | null> {
  const { rows } = await db.query<TransitionResult>(
    `UPDATE ${TABLE[kind]} SET processing_step = $2
      WHERE id = $1 AND status = 'pending' AND progress_pct IS NULL
      RETURNING id, account_id, status, processing_step, progress_pct, error_code, error_message`,
    [id, step],
  );
  return rows[0] ?? null;
}
