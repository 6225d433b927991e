/**
 * Predictions and causal analyses: inserts, reads scoped to their account, keyset pages, and
 * the job-state transitions driven by runner callbacks. Every transition is one SQL statement
 * guarded by its WHERE clause, so it is idempotent and monotonic under duplicates, reordering
 * and concurrent delivery: a finished job never changes, progress never goes back, started_at
 * is set once.
 */
import type {
  DatasetSummary,
  FailureCode,
  JobKind,
  JobSpec,
  JobWarning,
  ProcessingStep,
} from "@causeway/contract";
import type { Queryable } from "./database.ts";

export type JobStatus = "pending" | "processing" | "completed" | "failed";

/** Result files by stable basename → object key. */
export type ResultFileMap = Record<string, string>;

interface JobColumns {
  id: string;
  account_id: string;
  status: JobStatus;
  target: string | null;
  spec: JobSpec;
  processing_step: string | null;
  progress_pct: number | null;
  error_code: string | null;
  error_message: string | null;
  error_detail: string | null;
  billable: boolean | null;
  result_files: ResultFileMap | null;
  created_at: Date;
  started_at: Date | null;
  completed_at: Date | null;
}

export interface PredictionRow extends JobColumns {
  job_type: "target_id" | "target_validation";
  label: string | null;
  model_version: string;
  input_prefix: string;
  quota_refunded: boolean;
  result_sets: string[] | null;
  dataset_summary: DatasetSummary | null;
  /** From the final callback; null before it (and for predictions finished before warnings existed). */
  warnings: JobWarning[] | null;
}

export interface CausalAnalysisRow extends JobColumns {
  prediction_id: string;
  target: string;
}

const TABLE: Record<JobKind, string> = { prediction: "predictions", causal_analysis: "causal_analyses" };

export async function insertPrediction(
  db: Queryable,
  p: {
    id: string;
    accountId: string;
    jobType: PredictionRow["job_type"];
    target: string | null;
    label: string;
    modelVersion: string;
    spec: JobSpec;
    inputPrefix: string;
    now: Date;
  },
): Promise<void> {
  await db.query(
    `INSERT INTO predictions (id, account_id, job_type, target, label, model_version, spec, input_prefix, created_at, heartbeat_at)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $9)`,
    [
      p.id,
      p.accountId,
      p.jobType,
      p.target,
      p.label,
      p.modelVersion,
      JSON.stringify(p.spec),
      p.inputPrefix,
      p.now,
    ],
  );
}

export async function insertCausalAnalysis(
  db: Queryable,
  c: { id: string; accountId: string; predictionId: string; target: string; spec: JobSpec; now: Date },
): Promise<void> {
  await db.query(
    `INSERT INTO causal_analyses (id, account_id, prediction_id, target, spec, created_at, heartbeat_at)
     VALUES ($1, $2, $3, $4, $5, $6, $6)`,
    [c.id, c.accountId, c.predictionId, c.target, JSON.stringify(c.spec), c.now],
  );
}

/** A prediction of this account, or null (missing and foreign look the same). */
export async function getPrediction(
  db: Queryable,
  accountId: string,
  id: string,
): Promise<PredictionRow | null> {
  const { rows } = await db.query<PredictionRow>(
    `SELECT * FROM predictions WHERE id = $1 AND account_id = $2`,
    [id, accountId],
  );
  return rows[0] ?? null;
}

export async function getCausalAnalysis(
  db: Queryable,
  accountId: string,
  id: string,
): Promise<CausalAnalysisRow | null> {
  const { rows } = await db.query<CausalAnalysisRow>(
    `SELECT * FROM causal_analyses WHERE id = $1 AND account_id = $2`,
    [id, accountId],
  );
  return rows[0] ?? null;
}

export async function listCausalAnalyses(
  db: Queryable,
  accountId: string,
  predictionId: string,
): Promise<CausalAnalysisRow[]> {
  const { rows } = await db.query<CausalAnalysisRow>(
    `SELECT * FROM causal_analyses WHERE prediction_id = $1 AND account_id = $2 ORDER BY created_at, id`,
    [predictionId, accountId],
  );
  return rows;
}

/** Position after which the next page starts (newest first). */
export interface PageCursor {
  createdAt: Date;
  id: string;
}

/** One page of an account's predictions, newest first; keyset on (created_at, id) so inserts never shift pages. */
export async function listPredictions(
  db: Queryable,
  accountId: string,
  limit: number,
  after: PageCursor | null,
): Promise<{ rows: PredictionRow[]; next: PageCursor | null }> {
  const params: unknown[] = [accountId, limit + 1];
  let where = `account_id = $1`;
  if (after) {
    params.push(after.createdAt, after.id);
    where += ` AND (created_at, id) < ($3, $4)`;
  }
  const { rows } = await db.query<PredictionRow>(
    `SELECT * FROM predictions WHERE ${where} ORDER BY created_at DESC, id DESC LIMIT $2`,
    params,
  );
  const page = rows.slice(0, limit);
  const last = page[page.length - 1];
  return {
    rows: page,
    next: rows.length > limit && last ? { createdAt: last.created_at, id: last.id } : null,
  };
}

/** Fields an API caller and the dispatcher's status mirror need after a transition. */
export interface TransitionResult {
  id: string;
  account_id: string;
  status: JobStatus;
  processing_step: string | null;
  progress_pct: number | null;
  error_code: string | null;
  error_message: string | null;
}

const RETURNING = `id, account_id, status, processing_step, progress_pct, error_code, error_message`;

/** Applies a progress report; null when the job is finished (or unknown) and nothing changed. */
export async function applyProgress(
  db: Queryable,
  kind: JobKind,
  id: string,
  p: { step: ProcessingStep; pct: number; attempt: string; now: Date },
): Promise<TransitionResult | null> {
  const { rows } = await db.query<TransitionResult>(
    `UPDATE ${TABLE[kind]} SET
        status = 'processing',
        processing_step = CASE WHEN progress_pct IS NULL OR $2::int >= progress_pct THEN $3 ELSE processing_step END,
        progress_pct = GREATEST(COALESCE(progress_pct, 0), $2::int),
        started_at = COALESCE(started_at, $4),
        heartbeat_at = GREATEST(heartbeat_at, $4),
        last_attempt = $5
      WHERE id = $1 AND status IN ('pending', 'processing')
      RETURNING ${RETURNING}`,
    [id, p.pct, p.step, p.now, p.attempt],
  );
  return rows[0] ?? null;
}

/** Marks a job completed with its result files; null when it was already finished. */
export async function applyCompleted(
  db: Queryable,
  kind: JobKind,
  id: string,
  c: {
    resultFiles: ResultFileMap;
    resultSets: string[];
    datasetSummary: DatasetSummary | null;
    warnings?: JobWarning[];
    attempt: string;
    now: Date;
  },
): Promise<TransitionResult | null> {
  const extra = kind === "prediction" ? `, result_sets = $4, dataset_summary = $5, warnings = $6` : ``;
  const params: unknown[] = [id, c.now, JSON.stringify(c.resultFiles)];
  if (kind === "prediction")
    params.push(
      JSON.stringify(c.resultSets),
      JSON.stringify(c.datasetSummary),
      JSON.stringify(c.warnings ?? []),
    );
  params.push(c.attempt);
  const attemptParam = `$${params.length}`;
  const { rows } = await db.query<TransitionResult>(
    `UPDATE ${TABLE[kind]} SET
        status = 'completed',
        processing_step = 'results_uploaded',
        progress_pct = 100,
        result_files = $3${extra},
        started_at = COALESCE(started_at, $2),
        completed_at = $2,
        heartbeat_at = $2,
        billable = true,
        last_attempt = ${attemptParam}
      WHERE id = $1 AND status IN ('pending', 'processing')
      RETURNING ${RETURNING}`,
    params,
  );
  return rows[0] ?? null;
}

/**
 * Marks a job failed. For a non-billable prediction failure the quota unit is given back in
 * the same statement, at most once (quota_refunded). With `staleBefore`, only a job whose last
 * report is older than that instant is failed (the sweeper must not race a fresh callback).
 */
export async function applyFailed(
  db: Queryable,
  kind: JobKind,
  id: string,
  f: {
    code: FailureCode;
    message: string;
    detail: string | null;
    billable: boolean;
    resultFiles: ResultFileMap;
    datasetSummary: DatasetSummary | null;
    warnings?: JobWarning[];
    attempt: string | null;
    now: Date;
    staleBefore?: Date;
  },
): Promise<TransitionResult | null> {
  const params: unknown[] = [
    id,
    f.now,
    f.code,
    f.message,
    f.detail,
    f.billable,
    JSON.stringify(f.resultFiles),
    f.attempt,
    f.staleBefore ?? null,
  ];
  const set = `
        status = 'failed',
        error_code = $3, error_message = $4, error_detail = $5, billable = $6,
        result_files = $7,
        completed_at = $2,
        heartbeat_at = $2,
        last_attempt = COALESCE($8, last_attempt)`;
  const guard = `id = $1 AND status IN ('pending', 'processing') AND ($9::timestamptz IS NULL OR heartbeat_at < $9)`;
  if (kind === "causal_analysis") {
    const { rows } = await db.query<TransitionResult>(
      `UPDATE causal_analyses SET ${set} WHERE ${guard} RETURNING ${RETURNING}`,
      params,
    );
    return rows[0] ?? null;
  }
  params.push(JSON.stringify(f.datasetSummary), f.warnings ? JSON.stringify(f.warnings) : null);
  const { rows } = await db.query<TransitionResult>(
    `WITH u AS (
        UPDATE predictions SET ${set},
               dataset_summary = COALESCE($10::jsonb, dataset_summary),
               warnings = COALESCE($11::jsonb, warnings),
               quota_refunded = quota_refunded OR NOT $6
         WHERE ${guard}
         -- RETURNING sees the new row, so the refund flag is the parameter itself: the status
         -- guard admits one terminal transition, and quota_refunded is only ever set by it.
         RETURNING ${RETURNING}, (NOT $6) AS refund
      ), r AS (
        UPDATE accounts a SET quota_consumed = a.quota_consumed - 1
          FROM u WHERE a.id = u.account_id AND u.refund AND a.quota_consumed > 0
        RETURNING a.id
      )
      SELECT ${RETURNING} FROM u`,
    params,
  );
  return rows[0] ?? null;
}

/** Jobs that have not reported since `before`: candidates for the stuck-job sweeper. */
export async function findStalled(
  db: Queryable,
  kind: JobKind,
  before: Date,
  limit = 100,
): Promise<string[]> {
  const { rows } = await db.query<{ id: string }>(
    `SELECT id FROM ${TABLE[kind]} WHERE status IN ('pending', 'processing') AND heartbeat_at < $1 ORDER BY heartbeat_at LIMIT $2`,
    [before, limit],
  );
  return rows.map((r) => r.id);
}

/** Unfinished jobs of both kinds (the in-flight reservations they hold). */
export async function listUnfinishedJobs(
  db: Queryable,
): Promise<{ id: string; account_id: string; kind: JobKind }[]> {
  const { rows } = await db.query<{ id: string; account_id: string; kind: JobKind }>(
    `SELECT id, account_id, 'prediction' AS kind FROM predictions WHERE status IN ('pending', 'processing')
     UNION ALL
     SELECT id, account_id, 'causal_analysis' AS kind FROM causal_analyses WHERE status IN ('pending', 'processing')`,
  );
  return rows;
}

/** An unfinished job as stored: its spec (unparsed JSON) and the runner attempt that last reported. */
export interface UnfinishedJob {
  id: string;
  spec: unknown;
  last_attempt: string | null;
}

/** Unfinished jobs of one kind, oldest first (the order they were submitted in). */
export async function listUnfinished(db: Queryable, kind: JobKind): Promise<UnfinishedJob[]> {
  const { rows } = await db.query<UnfinishedJob>(
    `SELECT id, spec, last_attempt FROM ${TABLE[kind]} WHERE status IN ('pending', 'processing') ORDER BY created_at, id`,
  );
  return rows;
}

/** Sets heartbeat_at (a local job leaving the queue for a process). */
export async function touchJob(db: Queryable, kind: JobKind, id: string, now: Date): Promise<void> {
  await db.query(
    `UPDATE ${TABLE[kind]} SET heartbeat_at = GREATEST(heartbeat_at, $2) WHERE id = $1 AND status IN ('pending', 'processing')`,
    [id, now],
  );
}

/** A job's current transition fields (what the status mirror is given), or null. */
export async function transitionStateOf(
  db: Queryable,
  kind: JobKind,
  id: string,
): Promise<TransitionResult | null> {
  const { rows } = await db.query<TransitionResult>(`SELECT ${RETURNING} FROM ${TABLE[kind]} WHERE id = $1`, [
    id,
  ]);
  return rows[0] ?? null;
}

/** A prediction's row with its account's tier. */
export async function predictionWithTier(
  db: Queryable,
  id: string,
): Promise<(PredictionRow & { tier: "external" | "internal" }) | null> {
  const { rows } = await db.query<PredictionRow & { tier: "external" | "internal" }>(
    `SELECT p.*, a.tier FROM predictions p JOIN accounts a ON a.id = p.account_id WHERE p.id = $1`,
    [id],
  );
  return rows[0] ?? null;
}

/** The result files of finished jobs (predictions and analyses) whose output prefix is one of `prefixes`. */
export async function finishedResultFiles(
  db: Queryable,
  prefixes: readonly string[],
): Promise<{ prefix: string; result_files: ResultFileMap | null }[]> {
  const { rows } = await db.query<{ prefix: string; result_files: ResultFileMap | null }>(
    `SELECT spec->>'output_prefix' AS prefix, result_files FROM predictions
      WHERE status IN ('completed', 'failed') AND spec->>'output_prefix' = ANY($1)
     UNION ALL
     SELECT spec->>'output_prefix' AS prefix, result_files FROM causal_analyses
      WHERE status IN ('completed', 'failed') AND spec->>'output_prefix' = ANY($1)`,
    [prefixes],
  );
  return rows;
}

/** How many jobs of a kind are recorded (tests prove what was or was not stored with it). */
export async function countJobs(db: Queryable, kind: JobKind): Promise<number> {
  const { rows } = await db.query<{ n: number }>(`SELECT count(*)::int AS n FROM ${TABLE[kind]}`);
  return rows[0]!.n;
}
