/**
 * The reads behind the API's metrics: the gauges' periodic snapshot (queue, quota, models) and a
 * finished job's row for the job metrics. Read-only.
 */
import type { JobKind } from "@causeway/contract";
import type { Queryable } from "./database.ts";

export interface QueueCount {
  job_type: string;
  status: string;
  n: number;
  oldest: Date | null;
}

export interface QuotaCount {
  tier: string;
  accounts: number;
  near: number;
  exhausted: number;
}

/** Pending and processing jobs per job type (causal analyses as one type), with the oldest's age. */
export async function queueCounts(db: Queryable): Promise<QueueCount[]> {
  const { rows } = await db.query<QueueCount>(
    `SELECT job_type, status, count(*)::int AS n, min(created_at) AS oldest
       FROM predictions WHERE status IN ('pending', 'processing') GROUP BY job_type, status
     UNION ALL
     SELECT 'causal_analysis', status, count(*)::int, min(created_at)
       FROM causal_analyses WHERE status IN ('pending', 'processing') GROUP BY status`,
  );
  return rows;
}

/** Accounts per tier with a quota, and how many are near (at `nearRatio` of it) or out of it. */
export async function quotaCounts(
  db: Queryable,
  defaultQuota: number,
  nearRatio: number,
): Promise<QuotaCount[]> {
  const { rows } = await db.query<QuotaCount>(
    `SELECT tier, count(*)::int AS accounts,
            count(*) FILTER (WHERE quota_consumed >= $2::float8 * total)::int AS near,
            count(*) FILTER (WHERE quota_consumed >= total)::int AS exhausted
       FROM (SELECT tier, quota_consumed, COALESCE(quota_total, $1::int) AS total FROM accounts) q
      WHERE total > 0 GROUP BY tier`,
    [defaultQuota, nearRatio],
  );
  return rows;
}

export async function modelManifests(db: Queryable): Promise<{ version: string; manifest: unknown }[]> {
  const { rows } = await db.query<{ version: string; manifest: unknown }>(
    `SELECT version, manifest FROM models`,
  );
  return rows;
}

/** What the job metrics read of a finished job. */
export interface FinishedJobRow {
  job_type: string;
  status: string;
  error_code: string | null;
  created_at: Date;
  started_at: Date | null;
  completed_at: Date | null;
  refunded_tier: "external" | "internal" | null;
}

const FINISHED_JOB: Record<JobKind, string> = {
  prediction: `SELECT p.job_type, p.status, p.error_code, p.created_at, p.started_at, p.completed_at,
                      CASE WHEN p.status = 'failed' AND p.quota_refunded THEN a.tier END AS refunded_tier
                 FROM predictions p JOIN accounts a ON a.id = p.account_id WHERE p.id = $1`,
  causal_analysis: `SELECT 'causal_analysis' AS job_type, status, error_code, created_at, started_at, completed_at,
                           NULL AS refunded_tier
                      FROM causal_analyses WHERE id = $1`,
};

export async function finishedJobRow(
  db: Queryable,
  kind: JobKind,
  id: string,
): Promise<FinishedJobRow | null> {
  const { rows } = await db.query<FinishedJobRow>(FINISHED_JOB[kind], [id]);
  return rows[0] ?? null;
}
