/**
 * What the decisions read of a Job or a pod (reconcile/outcome.ts, reconcile/runner-job.ts), as
 * one comparable string. A watch update that leaves it unchanged cannot change a decision and
 * runs no pass (like controller-runtime's predicates): at a thousand runners most updates are
 * bookkeeping (a Job's `ready` and `uncountedTerminatedPods`, the Job controller's tracking
 * finalizer leaving a pod, the kubelet's conditions). Anything a decision reads must be here;
 * messages are included although they only word an outcome, to stay on the safe side.
 */
import type { V1Job, V1Pod } from "@kubernetes/client-node";
import { RUNNER_CONTAINER } from "../reconcile/job.ts";
import { IMAGE_FATAL, IMAGE_PULL_BACKOFF } from "../reconcile/outcome.ts";

const when = (t: Date | string | undefined): string | null =>
  t === undefined ? null : new Date(t).toISOString();

export function jobView(job: V1Job): string {
  const m = job.metadata ?? {};
  const s = job.status ?? {};
  return JSON.stringify([
    m.uid,
    when(m.deletionTimestamp),
    m.ownerReferences?.find((r) => r.controller === true)?.uid,
    job.spec?.activeDeadlineSeconds,
    s.failed ?? 0,
    s.succeeded ?? 0,
    (s.conditions ?? []).map((c) => [c.type, c.status, c.reason, c.message]),
  ]);
}

/**
 * A pod's view: of its conditions only the two that decide (evicted, unschedulable); of a
 * waiting runner only an image problem (ContainerCreating and the like decide nothing: the
 * pending timeout is a clock, not an event). Its start time is read with its running state.
 */
export function podView(pod: V1Pod): string {
  const m = pod.metadata ?? {};
  const s = pod.status ?? {};
  const runner = s.containerStatuses?.find((c) => c.name === RUNNER_CONTAINER)?.state;
  const waiting = runner?.waiting?.reason ?? "";
  return JSON.stringify([
    m.uid,
    when(m.creationTimestamp),
    when(m.deletionTimestamp),
    s.phase,
    s.reason,
    s.message,
    (s.conditions ?? [])
      .filter(
        (c) =>
          (c.type === "DisruptionTarget" && c.status === "True") ||
          (c.type === "PodScheduled" && c.status === "False"),
      )
      .map((c) => [c.type, c.status, c.reason, c.message]),
    runner?.running ? "running" : null,
    runner?.terminated
      ? ["terminated", runner.terminated.exitCode, runner.terminated.reason, runner.terminated.message]
      : null,
    IMAGE_FATAL.has(waiting) || IMAGE_PULL_BACKOFF.has(waiting) ? [waiting, runner?.waiting?.message] : null,
  ]);
}

/**
 * A pod as the Job controller creates it: Pending, nothing started, scheduled or refused yet.
 * Its arrival changes no decision (the pass that created the Job already said Pending); only the
 * pending timeout is measured from it, and the requeue at the Job's timeout measures again.
 */
export function isFreshPod(pod: V1Pod): boolean {
  const s = pod.status ?? {};
  const fresh = podView({
    metadata: { uid: pod.metadata?.uid, creationTimestamp: pod.metadata?.creationTimestamp },
    status: { phase: "Pending" },
  });
  return (s.phase === undefined || s.phase === "Pending") && podView(pod) === fresh;
}
