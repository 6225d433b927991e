/**
 * Reads a runner Job and its pods into one outcome, including the failures the runner
 * cannot report itself: OOM kills, the Job deadline, pods that never start, evictions.
 */
import type { V1ContainerStatus, V1Job, V1Pod } from "@kubernetes/client-node";
import { RUNNER_EXIT, type FailureCode } from "@causeway/contract";
import { RUNNER_CONTAINER } from "./job.ts";
import { REASONS, type ReconcileConfig, type Reason } from "./types.ts";

/** Where a Job stands. `errorCode` is set only for failures the operator itself detected. */
export type Outcome =
  | { state: "pending"; reason: Reason; message: string; timeoutAt: Date }
  | { state: "running"; reason: Reason; message: string; startedAt: Date }
  | { state: "succeeded"; reason: Reason; message: string }
  | { state: "failed"; reason: Reason; message: string; errorCode: FailureCode | null };

export const IMAGE_PULL_BACKOFF: ReadonlySet<string> = new Set(["ImagePullBackOff", "ErrImagePull"]);
/** Image errors that never heal on their own: fail at once instead of waiting out the timeout. */
export const IMAGE_FATAL: ReadonlySet<string> = new Set(["InvalidImageName", "ErrImageNeverPull"]);
const MAX_MESSAGE = 1000;

const clip = (s: string | undefined): string => (s ?? "").trim().slice(0, MAX_MESSAGE);
const time = (t: Date | string | undefined): number => (t === undefined ? 0 : new Date(t).getTime());

function jobCondition(job: V1Job, type: string): { reason?: string; message?: string } | undefined {
  return job.status?.conditions?.find((c) => c.type === type && c.status === "True");
}

function runnerStatus(pod: V1Pod): V1ContainerStatus | undefined {
  return pod.status?.containerStatuses?.find((c) => c.name === RUNNER_CONTAINER);
}

/** True when a runner pod has succeeded: its Job will complete without anything else running. */
export function hasSucceededPod(pods: readonly V1Pod[]): boolean {
  return pods.some((p) => p.status?.phase === "Succeeded");
}

/** Pods newest first. */
function newestFirst(pods: readonly V1Pod[]): V1Pod[] {
  return [...pods].sort((a, b) => time(b.metadata?.creationTimestamp) - time(a.metadata?.creationTimestamp));
}

function isOomKilled(pod: V1Pod): boolean {
  const t = runnerStatus(pod)?.state?.terminated;
  return t !== undefined && (t.reason === "OOMKilled" || t.exitCode === 137);
}

function isEvicted(pod: V1Pod): boolean {
  return (
    pod.status?.reason === "Evicted" ||
    (pod.status?.conditions ?? []).some((c) => c.type === "DisruptionTarget" && c.status === "True")
  );
}

/** Why the newest failed pod failed, for a Job that ran out of retries. */
function podFailure(pods: readonly V1Pod[], fallback: string): Outcome {
  const failed = newestFirst(pods).find((p) => p.status?.phase === "Failed");
  if (failed && isOomKilled(failed)) {
    const limit = failed.spec?.containers.find((c) => c.name === RUNNER_CONTAINER)?.resources?.limits?.memory;
    const msg = `The runner ran out of memory${limit ? ` (limit ${limit})` : ""}.`;
    return { state: "failed", reason: REASONS.oomKilled, message: msg, errorCode: "out_of_memory" };
  }
  if (failed && isEvicted(failed)) {
    const msg = clip(failed.status?.message) || "The runner pod was evicted.";
    return { state: "failed", reason: REASONS.podEvicted, message: msg, errorCode: "internal_error" };
  }
  const t = failed ? runnerStatus(failed)?.state?.terminated : undefined;
  const msg = t
    ? `The runner exited with code ${t.exitCode}${t.reason ? ` (${t.reason})` : ""}: ${clip(t.message) || "no message"}`
    : clip(fallback) || "The runner Job failed.";
  return { state: "failed", reason: REASONS.runnerCrashed, message: msg, errorCode: "internal_error" };
}

/** A pod that is stuck before its container starts, as a failure, or null. */
function pendingProblem(pod: V1Pod | undefined, timedOut: boolean): Outcome | null {
  const waiting = pod ? runnerStatus(pod)?.state?.waiting : undefined;
  if (
    waiting?.reason &&
    (IMAGE_FATAL.has(waiting.reason) || (timedOut && IMAGE_PULL_BACKOFF.has(waiting.reason)))
  ) {
    const msg = `The runner image could not be pulled (${waiting.reason}): ${clip(waiting.message)}`;
    return { state: "failed", reason: REASONS.imagePullFailed, message: msg, errorCode: "job_stalled" };
  }
  if (!timedOut) return null;
  const unschedulable = pod?.status?.conditions?.find(
    (c) => c.type === "PodScheduled" && c.status === "False" && c.reason === "Unschedulable",
  );
  if (unschedulable) {
    const msg = `The runner pod could not be scheduled: ${clip(unschedulable.message)}`;
    return { state: "failed", reason: REASONS.podUnschedulable, message: msg, errorCode: "job_stalled" };
  }
  const msg = pod ? "The runner pod did not start in time." : "No runner pod was created in time.";
  return { state: "failed", reason: REASONS.podPendingTimeout, message: msg, errorCode: "job_stalled" };
}

/** The outcome of a runner Job observed at `now`. */
export function jobOutcome(job: V1Job, pods: readonly V1Pod[], now: Date, config: ReconcileConfig): Outcome {
  // SuccessCriteriaMet (Kubernetes >= 1.31) comes before Complete, as soon as the Job has succeeded.
  if (jobCondition(job, "Complete") ?? jobCondition(job, "SuccessCriteriaMet")) {
    return { state: "succeeded", reason: REASONS.jobSucceeded, message: "The runner Job completed." };
  }
  // Exit code 3: the runner reported its failure through a callback; the code is the API's to record.
  const reported = pods.find((p) => runnerStatus(p)?.state?.terminated?.exitCode === RUNNER_EXIT.jobFailed);
  if (reported) {
    const msg = clip(runnerStatus(reported)?.state?.terminated?.message) || "The runner reported a failure.";
    return { state: "failed", reason: REASONS.runnerFailed, message: msg, errorCode: null };
  }
  // FailureTarget (Kubernetes >= 1.31) is set as soon as the Job is doomed, before its pods are gone.
  const failed = jobCondition(job, "Failed") ?? jobCondition(job, "FailureTarget");
  if (failed?.reason === "DeadlineExceeded") {
    const msg = `The job ran longer than its deadline of ${job.spec?.activeDeadlineSeconds ?? "?"} seconds.`;
    return {
      state: "failed",
      reason: REASONS.deadlineExceeded,
      message: msg,
      errorCode: "deadline_exceeded",
    };
  }
  if (failed) return podFailure(pods, failed.message ?? "");
  // A runner pod that succeeded is the Job's success (one completion, restartPolicy Never): the
  // Job controller's own verdict follows, at a thousand Jobs tens of seconds later.
  if (hasSucceededPod(pods)) {
    return { state: "succeeded", reason: REASONS.jobSucceeded, message: "The runner completed." };
  }

  // Terminating pods are on their way out; a replacement (if any) decides what comes next.
  const sorted = newestFirst(pods).filter((p) => !p.metadata?.deletionTimestamp);
  const started = sorted.find(
    (p) => runnerStatus(p)?.state?.running !== undefined || runnerStatus(p)?.state?.terminated !== undefined,
  );
  const ranBefore =
    started !== undefined || (job.status?.failed ?? 0) > 0 || (job.status?.succeeded ?? 0) > 0;
  const newest = sorted[0];
  if (newest?.status?.phase === "Running" || (ranBefore && newest?.status?.phase !== "Pending")) {
    const startedAt = new Date(
      time(started?.status?.startTime ?? newest?.status?.startTime) || now.getTime(),
    );
    return { state: "running", reason: REASONS.podRunning, message: "The runner is running.", startedAt };
  }
  // Pending: measured from the newest pod, or from the Job while no pod exists yet.
  const since = time(newest?.metadata?.creationTimestamp ?? job.metadata?.creationTimestamp) || now.getTime();
  const timeoutAt = new Date(since + config.pendingTimeoutSeconds * 1000);
  const problem = pendingProblem(newest, now.getTime() >= timeoutAt.getTime());
  if (problem) return problem;
  return {
    state: "pending",
    reason: REASONS.jobPending,
    message: "Waiting for the runner pod to start.",
    timeoutAt,
  };
}
