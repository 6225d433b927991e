/**
 * The webhook outbox (webhook_deliveries). A row is written at submission; it is due once its
 * job is terminal (joined from the job's table) and its next attempt time has come. Claiming
 * pushes the next attempt time forward by a lease in one UPDATE ... RETURNING with SKIP LOCKED,
 * so several API replicas polling the same table never deliver one row at the same time.
 */
import type { JobKind } from "@causeway/contract";
import type { Queryable } from "./database.ts";

export async function recordWebhook(
  db: Queryable,
  w: { jobId: string; kind: JobKind; accountId: string; url: string; eventId: string; now: Date },
): Promise<void> {
  await db.query(
    `INSERT INTO webhook_deliveries (job_id, job_kind, account_id, url, event_id, next_attempt_at, created_at)
     VALUES ($1, $2, $3, $4, $5, $6, $6)`,
    [w.jobId, w.kind, w.accountId, w.url, w.eventId, w.now],
  );
}

export interface DueDelivery {
  job_id: string;
  job_kind: JobKind;
  account_id: string;
  url: string;
  event_id: string;
  attempts: number;
  status: "completed" | "failed";
  error_code: string | null;
  error_message: string | null;
  completed_at: Date | null;
}

/** Claims up to `limit` due deliveries for `leaseMs` (a crashed deliverer's claim simply lapses). */
export async function claimDue(
  db: Queryable,
  now: Date,
  leaseMs: number,
  limit: number,
): Promise<DueDelivery[]> {
  const { rows } = await db.query<DueDelivery>(
    `WITH due AS (
       SELECT d.job_id FROM webhook_deliveries d
        WHERE d.delivered_at IS NULL AND d.gave_up_at IS NULL AND d.next_attempt_at <= $1
          AND EXISTS (
            SELECT 1 FROM predictions p WHERE p.id = d.job_id AND p.status IN ('completed', 'failed')
            UNION ALL
            SELECT 1 FROM causal_analyses c WHERE c.id = d.job_id AND c.status IN ('completed', 'failed'))
        ORDER BY d.next_attempt_at
        LIMIT $3
        FOR UPDATE SKIP LOCKED)
     UPDATE webhook_deliveries w SET next_attempt_at = $2
       FROM due WHERE w.job_id = due.job_id
     RETURNING w.job_id, w.job_kind, w.account_id, w.url, w.event_id, w.attempts,
       COALESCE((SELECT status FROM predictions WHERE id = w.job_id),
                (SELECT status FROM causal_analyses WHERE id = w.job_id)) AS status,
       COALESCE((SELECT error_code FROM predictions WHERE id = w.job_id),
                (SELECT error_code FROM causal_analyses WHERE id = w.job_id)) AS error_code,
       COALESCE((SELECT error_message FROM predictions WHERE id = w.job_id),
                (SELECT error_message FROM causal_analyses WHERE id = w.job_id)) AS error_message,
       COALESCE((SELECT completed_at FROM predictions WHERE id = w.job_id),
                (SELECT completed_at FROM causal_analyses WHERE id = w.job_id)) AS completed_at`,
    [now, new Date(now.getTime() + leaseMs), limit],
  );
  return rows;
}

export async function markDelivered(db: Queryable, jobId: string, now: Date): Promise<void> {
  await db.query(
    `UPDATE webhook_deliveries SET delivered_at = $2, attempts = attempts + 1, last_error = NULL WHERE job_id = $1`,
    [jobId, now],
  );
}

/** Records a failed attempt: the next one at `retryAt`, or none (given up) when null. */
export async function markFailed(
  db: Queryable,
  jobId: string,
  error: string,
  retryAt: Date | null,
  now: Date,
): Promise<void> {
  await db.query(
    `UPDATE webhook_deliveries
        SET attempts = attempts + 1, last_error = $2,
            next_attempt_at = COALESCE($3::timestamptz, next_attempt_at),
            gave_up_at = CASE WHEN $3::timestamptz IS NULL THEN $4::timestamptz END
      WHERE job_id = $1`,
    [jobId, error.slice(0, 500), retryAt, now],
  );
}

export interface DeliveryRecord {
  attempts: number;
  delivered_at: Date | null;
  gave_up_at: Date | null;
  last_error: string | null;
}

export async function deliveryOf(db: Queryable, jobId: string): Promise<DeliveryRecord | null> {
  const { rows } = await db.query<DeliveryRecord>(
    `SELECT attempts, delivered_at, gave_up_at, last_error FROM webhook_deliveries WHERE job_id = $1`,
    [jobId],
  );
  return rows[0] ?? null;
}
