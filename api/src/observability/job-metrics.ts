/**
 * Job metrics that need the job's row: called once per terminal transition (the guarded
 * UPDATE admits exactly one), so every job is counted once however many callbacks, sweeps or
 * crash reports race to finish it. Queue wait and run time are observed at that moment from
 * the row's own timestamps, which PostgreSQL set.
 */
import type { JobKind } from "@causeway/contract";
import type { Queryable } from "../db/database.ts";
import { finishedJobRow } from "../db/metrics-queries.ts";
import { recordJobFinished, type JobTypeLabel } from "./metrics.ts";

/**
 * Records a job that has just finished (call it only when this process made the terminal
 * transition). Never throws: failures are reported to `onError`.
 */
export async function observeJobFinished(
  db: Queryable,
  kind: JobKind,
  id: string,
  onError: (err: unknown) => void = () => {},
): Promise<void> {
  try {
    const row = await finishedJobRow(db, kind, id);
    if (!row || (row.status !== "completed" && row.status !== "failed")) return;
    recordJobFinished({
      jobType: row.job_type as JobTypeLabel,
      status: row.status,
      errorCode: row.error_code,
      createdAt: row.created_at,
      startedAt: row.started_at,
      completedAt: row.completed_at,
      refundedTier: row.refunded_tier,
    });
  } catch (err) {
    onError(err);
  }
}
