/**
 * Holds back the dispatch of a job whose model version is still being imported at start-up
 * (services/model-imports.ts): the submission is accepted at once, the job stays pending with
 * a processing step that says why, and it is dispatched when the import ends, or failed (not
 * billable) when the import fails. Every other job passes straight through.
 */
import type { FastifyBaseLogger } from "fastify";
import type { JobKind, JobSpec } from "@causeway/contract";
import type { Queryable } from "../db/database.ts";
import { markWaiting } from "../db/model-wait.ts";
import type { JobEvents } from "../events/job-events.ts";
import type { JobService } from "../services/jobs.ts";
import { WAITING_FOR_MODEL_STEP } from "../services/model-imports.ts";
import type { DispatchContext, Dispatcher, MirroredStatus } from "./dispatcher.ts";

export interface ModelGateOptions {
  inner: Dispatcher;
  imports: {
    pending(version: string): boolean;
    whenReady(version: string): Promise<void>;
  };
  /** The job now waits (mark its status). */
  onWaiting: (spec: JobSpec) => Promise<void>;
  /** The import failed, or the held dispatch threw: fail the job. */
  onFailed: (spec: JobSpec, reason: string) => Promise<void>;
}

export class ModelGate implements Dispatcher {
  private readonly o: ModelGateOptions;
  private closed = false;

  constructor(options: ModelGateOptions) {
    this.o = options;
  }

  async dispatch(spec: JobSpec, ctx: DispatchContext): Promise<void> {
    const version = spec.model_version;
    if (!this.o.imports.pending(version)) return this.o.inner.dispatch(spec, ctx);
    await this.o.onWaiting(spec);
    // The inner dispatcher gets ready meanwhile, so the job does not pay a runner's start after the import.
    this.prewarm();
    void this.o.imports.whenReady(version).then(
      async () => {
        if (this.closed) return;
        try {
          await this.o.inner.dispatch(spec, ctx);
        } catch (err) {
          await this.o.onFailed(spec, err instanceof Error ? err.message : String(err));
        }
      },
      () =>
        this.closed ? undefined : this.o.onFailed(spec, `model version ${version} could not be imported`),
    );
  }

  mirrorStatus(job: { kind: JobKind; job_id: string }, status: MirroredStatus): Promise<void> {
    return this.o.inner.mirrorStatus(job, status);
  }

  prewarm(): void {
    this.o.inner.prewarm?.();
  }

  cancel(jobId: string): void {
    this.o.inner.cancel?.(jobId);
  }

  async close(): Promise<void> {
    // A job still held is pending in the database and is dispatched again by the next start's recovery.
    this.closed = true;
    await this.o.inner.close();
  }
}

/** The gate wired to the job store: waiting jobs say so; a failed import fails them (not billable). */
export function gateOnModelImports(
  inner: Dispatcher,
  deps: {
    imports: ModelGateOptions["imports"];
    db: Queryable;
    jobs: Pick<JobService, "fail">;
    events: Pick<JobEvents, "publish">;
    log: FastifyBaseLogger;
  },
): ModelGate {
  return new ModelGate({
    inner,
    imports: deps.imports,
    onWaiting: async (spec) => {
      const row = await markWaiting(deps.db, spec.kind, spec.job_id, WAITING_FOR_MODEL_STEP);
      if (row) deps.events.publish(spec.kind, row);
      deps.log.info(
        { job_id: spec.job_id, model_version: spec.model_version },
        "job waits for its model version",
      );
    },
    onFailed: async (spec, reason) => {
      await deps.jobs
        .fail(
          spec.kind,
          spec.job_id,
          "internal_error",
          "The model version could not be loaded. Please submit the job again.",
          {
            detail: reason,
          },
        )
        .catch((err: unknown) => deps.log.error({ err }, "could not fail a job whose model is missing"));
    },
  });
}
