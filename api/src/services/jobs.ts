/**
 * Job lifecycle on the API side: applying runner callbacks, failing jobs (dispatch errors,
 * crashed local runners, the stall sweeper), and the in-flight reservations that follow a
 * prediction from submission to its end. PostgreSQL transitions come first (db/jobs.ts); the
 * reservation release and the dispatcher's status mirror follow and are idempotent.
 */
import type { FastifyBaseLogger } from "fastify";
import {
  JobSpec,
  jobInputKeys,
  type FailureCode,
  type JobKind,
  type RunnerCallback,
} from "@causeway/contract";
import type { ObjectStore } from "@causeway/runner/storage";
import type { Config } from "../config.ts";
import type { Database } from "../db/database.ts";
import {
  applyCompleted,
  applyFailed,
  applyProgress,
  findStalled,
  listUnfinished,
  listUnfinishedJobs,
  touchJob,
  transitionStateOf,
  type ResultFileMap,
  type TransitionResult,
} from "../db/jobs.ts";
import { forgetQuota } from "../db/quota-cache.ts";
import type { Dispatcher } from "../dispatch/dispatcher.ts";
import { limitKeys, type LimitStore } from "../limits/limit-store.ts";
import { observeJobFinished } from "../observability/job-metrics.ts";

export interface JobServiceDeps {
  config: Config;
  db: Database;
  limits: LimitStore;
  /** Where jobs' inputs live (recovery checks that they are still there). */
  store: ObjectStore;
  dispatcher: () => Dispatcher;
  now: () => Date;
  log: FastifyBaseLogger;
  /** Stops a local child (sweeper); no-op in cluster mode. */
  cancel?: (jobId: string) => void;
  /** Called once per job when it reaches a terminal state (metrics hook). */
  onFinished?: (kind: JobKind, jobId: string) => void;
  /** Called with the current state after every applied callback or failure (push delivery). */
  onChange?: (kind: JobKind, job: TransitionResult) => void;
  /** Called once when a prediction completes (stores its status body); never throws. */
  onPredictionCompleted?: (predictionId: string) => Promise<void>;
  /** A running prediction's attempt reported its scores written (status previews are prepared). */
  onPredictionScored?: (predictionId: string, attempt: string) => Promise<void>;
}

export const STALLED_MESSAGE = "The job stopped reporting progress and was stopped. Please submit it again.";
export const RESTARTED_MESSAGE =
  "The service restarted while this job was queued or running. Please submit it again.";

/** A job left unfinished by a previous process that can run again (JobService.recover). */
export interface ResumableJob {
  spec: JobSpec;
  previousAttempt: string | null;
}

/** The in-flight set a job of this kind holds a slot in (predictions and analyses are limited apart). */
function inflightKey(kind: JobKind, accountId: string): string {
  return kind === "prediction" ? limitKeys.inflight(accountId) : limitKeys.causalInflight(accountId);
}

function fileMap(files: { name: string; key: string }[]): ResultFileMap {
  return Object.fromEntries(files.map((f) => [f.name, f.key]));
}

export class JobService {
  private readonly deps: JobServiceDeps;
  private sweeper: NodeJS.Timeout | undefined;

  constructor(deps: JobServiceDeps) {
    this.deps = deps;
  }

  /** How long an in-flight reservation lives without a refresh: past the stall deadline. */
  get reservationTtlMs(): number {
    return (this.deps.config.jobStallSeconds + 300) * 1000;
  }

  /**
   * Applies a verified callback. Returns whether it changed the job; duplicates, late and
   * out-of-order callbacks change nothing. The current status is mirrored either way, so a
   * retried callback also retries a mirror that failed the first time.
   */
  async applyCallback(cb: RunnerCallback): Promise<{ applied: boolean; found: boolean }> {
    const { db, now } = this.deps;
    const at = now();
    let result: TransitionResult | null;
    if (cb.status === "processing") {
      result = await applyProgress(db, cb.kind, cb.job_id, {
        step: cb.processing_step,
        pct: cb.progress_pct,
        attempt: cb.attempt,
        now: at,
      });
      if (result && cb.kind === "prediction" && cb.processing_step === "scores_computed")
        void this.deps.onPredictionScored?.(result.id, cb.attempt);
      if (result) {
        // Keep the reservation alive as long as the job reports.
        await this.deps.limits
          .reserve(
            inflightKey(cb.kind, result.account_id),
            result.id,
            Number.MAX_SAFE_INTEGER,
            this.reservationTtlMs,
            at.getTime(),
          )
          .catch((err: unknown) => this.deps.log.warn({ err }, "could not refresh in-flight reservation"));
      }
    } else if (cb.status === "completed") {
      result = await applyCompleted(db, cb.kind, cb.job_id, {
        resultFiles: fileMap(cb.result_files),
        resultSets: cb.result_sets,
        datasetSummary: cb.dataset_summary ?? null,
        warnings: cb.warnings,
        attempt: cb.attempt,
        now: at,
      });
    } else {
      result = await applyFailed(db, cb.kind, cb.job_id, {
        code: cb.error_code,
        message: cb.error_message,
        detail: cb.error_detail ?? null,
        billable: cb.billable,
        resultFiles: fileMap(cb.result_files),
        datasetSummary: cb.dataset_summary ?? null,
        warnings: cb.warnings,
        attempt: cb.attempt,
        now: at,
      });
    }
    // The guarded UPDATE admits one terminal transition: each job is counted once.
    if (result && (result.status === "completed" || result.status === "failed"))
      await observeJobFinished(db, cb.kind, result.id, (err) =>
        this.deps.log.warn({ err }, "job metrics not recorded"),
      );
    if (result?.status === "completed" && cb.kind === "prediction")
      void this.deps.onPredictionCompleted?.(result.id);
    const current = result ?? (await this.current(cb.kind, cb.job_id));
    if (!current) return { applied: false, found: false };
    if (current.status === "completed" || current.status === "failed")
      await this.afterFinish(cb.kind, current, result !== null);
    await this.mirror(cb.kind, current);
    return { applied: result !== null, found: true };
  }

  /** Fails a job from the API side (dispatch failure, crashed runner, stall, restart). */
  async fail(
    kind: JobKind,
    id: string,
    code: FailureCode,
    message: string,
    options: { detail?: string | null; staleBefore?: Date } = {},
  ): Promise<boolean> {
    const result = await applyFailed(this.deps.db, kind, id, {
      code,
      message,
      detail: options.detail ?? null,
      billable: false,
      resultFiles: {},
      datasetSummary: null,
      attempt: null,
      now: this.deps.now(),
      staleBefore: options.staleBefore,
    });
    if (!result) return false;
    await observeJobFinished(this.deps.db, kind, id, (err) =>
      this.deps.log.warn({ err }, "job metrics not recorded"),
    );
    await this.afterFinish(kind, result, true);
    await this.mirror(kind, result).catch((err: unknown) =>
      this.deps.log.warn({ err }, "status mirror failed"),
    );
    return true;
  }

  /** Releases what a finished job held. */
  private async afterFinish(kind: JobKind, job: TransitionResult, transitioned: boolean): Promise<void> {
    if (transitioned) this.deps.onFinished?.(kind, job.id);
    if (kind === "prediction") forgetQuota(this.deps.db, job.account_id); // a failure may have given a unit back
    await this.deps.limits
      .release(inflightKey(kind, job.account_id), job.id)
      .catch((err: unknown) => this.deps.log.warn({ err }, "could not release in-flight reservation"));
  }

  private async mirror(kind: JobKind, job: TransitionResult): Promise<void> {
    this.deps.onChange?.(kind, job);
    await this.deps.dispatcher().mirrorStatus(
      { kind, job_id: job.id },
      {
        status: job.status,
        processing_step: job.processing_step,
        progress_pct: job.progress_pct,
        error_code: job.error_code,
        error_message: job.error_message,
      },
    );
  }

  private current(kind: JobKind, id: string): Promise<TransitionResult | null> {
    return transitionStateOf(this.deps.db, kind, id);
  }

  /** One sweep: fails every job silent for longer than the stall deadline. Returns how many. */
  async sweep(): Promise<number> {
    const cutoff = new Date(this.deps.now().getTime() - this.deps.config.jobStallSeconds * 1000);
    let failed = 0;
    for (const kind of ["prediction", "causal_analysis"] as const) {
      for (const id of await findStalled(this.deps.db, kind, cutoff)) {
        if (await this.fail(kind, id, "job_stalled", STALLED_MESSAGE, { staleBefore: cutoff })) {
          failed++;
          this.deps.cancel?.(id);
          this.deps.log.warn({ kind, job_id: id }, "job stalled; failed by the sweeper");
        }
      }
    }
    return failed;
  }

  startSweeper(): void {
    const every = this.deps.config.sweepIntervalSeconds * 1000;
    this.sweeper = setInterval(() => {
      this.sweep().catch((err: unknown) => this.deps.log.warn({ err }, "sweep failed"));
    }, every);
    this.sweeper.unref();
  }

  stopSweeper(): void {
    if (this.sweeper) clearInterval(this.sweeper);
    this.sweeper = undefined;
  }

  /**
   * At start: restore in-flight reservations from PostgreSQL (the in-memory store starts
   * empty; Redis may have been flushed). In local mode the previous process's runners died with
   * it: its unfinished jobs whose inputs are intact are returned to be dispatched again
   * (`resume`, once the callback route listens), the rest are failed. Their quota units stay
   * as they are: a resumed job was paid for once, a failed one gives its unit back.
   */
  async recover(localDispatch: boolean): Promise<ResumableJob[]> {
    const { db, limits, now } = this.deps;
    const resumable: ResumableJob[] = [];
    if (localDispatch) {
      for (const kind of ["prediction", "causal_analysis"] as const) {
        for (const job of await listUnfinished(db, kind)) {
          const parsed = JobSpec.safeParse(job.spec);
          const missing = parsed.success ? await this.missingInputs(parsed.data) : null;
          if (parsed.success && missing === 0) {
            // The stall deadline counts from now, not from the last report of the dead runner.
            await touchJob(db, kind, job.id, now());
            resumable.push({ spec: parsed.data, previousAttempt: job.last_attempt });
            continue;
          }
          await this.fail(kind, job.id, "job_stalled", RESTARTED_MESSAGE, {
            detail: parsed.success
              ? `not dispatched again: ${missing} stored input object(s) missing`
              : "not dispatched again: the stored job spec does not parse",
          });
        }
      }
    }
    const at = now().getTime();
    for (const p of await listUnfinishedJobs(db)) {
      // Restoring must not be refused by the limit itself: these jobs already exist.
      await limits.reserve(
        inflightKey(p.kind, p.account_id),
        p.id,
        Number.MAX_SAFE_INTEGER,
        this.reservationTtlMs,
        at,
      );
    }
    return resumable;
  }

  /** Dispatches recovered jobs again, in submission order; one that cannot be queued is failed. */
  async resume(jobs: ResumableJob[]): Promise<void> {
    for (const { spec, previousAttempt } of jobs) {
      try {
        await this.deps.dispatcher().dispatch(spec, { previousAttempt });
        this.deps.log.info({ kind: spec.kind, job_id: spec.job_id }, "job dispatched again after a restart");
      } catch (err) {
        this.deps.log.error({ err, job_id: spec.job_id }, "could not dispatch a recovered job");
        await this.fail(spec.kind, spec.job_id, "job_stalled", RESTARTED_MESSAGE, {
          detail: "not dispatched again: the executor refused the job",
        });
      }
    }
  }

  private async missingInputs(spec: JobSpec): Promise<number> {
    const present = await Promise.all(jobInputKeys(spec).map((key) => this.deps.store.exists(key)));
    return present.filter((p) => !p).length;
  }
}
