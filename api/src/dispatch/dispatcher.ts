/**
 * How a job reaches a runner. Local mode runs each job on a thread of one warm runner host beside
 * the API (local-executor.ts, runner-pool.ts); cluster mode (CAUSEWAY_DISPATCH=kubernetes) creates custom resources that
 * the operator turns into Kubernetes Jobs (api/src/dispatch/kubernetes.ts, owned by the operator
 * engineer). Either way the runner reports through the same signed HTTP callback.
 */
import type { JobKind, JobSpec } from "@causeway/contract";

/** The status fields the API mirrors to the dispatcher after applying a callback. */
export type MirroredStatus = {
  status: "pending" | "processing" | "completed" | "failed";
  processing_step: string | null;
  progress_pct: number | null;
  error_code: string | null;
  error_message: string | null;
};

/** What a dispatch carries besides the spec. */
export interface DispatchContext {
  /** The submission's trace, continued by the runner. */
  traceparent?: string;
  /**
   * The runner attempt that last reported, when a job is dispatched again after a restart of
   * the embedded service: the new attempt gets the next number and so its own output prefix.
   */
  previousAttempt?: string | null;
}

export interface Dispatcher {
  /** Step (f) of a submission; throws → the caller fails the job and releases reservations. */
  dispatch(spec: JobSpec, ctx: DispatchContext): Promise<void>;
  /** Called after a callback was applied to PostgreSQL (cluster: patch CR status; local: no-op). */
  mirrorStatus(job: { kind: JobKind; job_id: string }, status: MirroredStatus): Promise<void>;
  close(): Promise<void>;
  /**
   * Optional: get a runner ready for a job on its way (a submission being received), so its start
   * overlaps the upload. Only a dispatcher with runners of its own to warm has it.
   */
  prewarm?(): void;
  /** Optional: stop a running job now (a cancelled job); a cluster's Job ends through its resource instead. */
  cancel?(jobId: string): void;
}
