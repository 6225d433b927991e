/**
 * Job metrics that need the job's row: called once per terminal transition (the guarded
 * UPDATE admits exactly one), so every job is counted once however many callbacks, sweeps or
 * crash reports race to finish it. Queue wait and run time are observed at that moment from
 * the row's own timestamps, which PostgreSQL set.
 */
import type { JobKind } from "@causeway/contract";
import type { Queryable } from "../db/database.ts";
import { recordJobFinished, type JobTypeLabel } from "./metrics.ts";

interface Row {
  job_type: JobTypeLabel;
  status: string;
  error_code: string | null;
  created_at: Date;
  started_at: Date | null;
  completed_at: Date | null;
  refunded_tier: "external" | "internal" | null;
}

const QUERIES: Record<JobKind, string> = {
  prediction: `SELECT p.job_type, p.status, p.error_code, p.created_at, p.started_at, p.completed_at,
                      CASE WHEN p.status = 'failed' AND p.quota_refunded THEN a.tier END AS refunded_tier
                 FROM predictions p JOIN accounts a ON a.id = p.account_id WHERE p.id = $1`,
  causal_analysis: `SELECT 'causal_analysis' AS job_type, status, error_code, created_at, started_at, completed_at,
                           NULL AS refunded_tier
                      FROM causal_analyses WHERE id = $1`,
};

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
    const { rows } = await db.query<Row>(QUERIES[kind], [id]);
    const row = rows[0];
    if (!row || (row.status !== "completed" && row.status !== "failed")) return;
    recordJobFinished({
      jobType: row.job_type,
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
