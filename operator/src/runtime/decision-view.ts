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

export function podView(pod: V1Pod): string {
  const m = pod.metadata ?? {};
  const s = pod.status ?? {};
  const runner = s.containerStatuses?.find((c) => c.name === RUNNER_CONTAINER)?.state;
  return JSON.stringify([
    m.uid,
    when(m.creationTimestamp),
    when(m.deletionTimestamp),
    s.phase,
    s.reason,
    s.message,
    when(s.startTime),
    (s.conditions ?? [])
      .filter((c) => c.type === "DisruptionTarget" || c.type === "PodScheduled")
      .map((c) => [c.type, c.status, c.reason, c.message]),
    runner?.running ? ["running", when(runner.running.startedAt)] : null,
    runner?.terminated
      ? ["terminated", runner.terminated.exitCode, runner.terminated.reason, runner.terminated.message]
      : null,
    runner?.waiting ? ["waiting", runner.waiting.reason, runner.waiting.message] : null,
  ]);
}

/**
 * A pod as the Job controller creates it: Pending, nothing started, scheduled or refused yet.
 * Its arrival changes no decision (the pass that created the Job already said Pending); only the
 * pending timeout is measured from it, and the requeue at the Job's timeout measures again.
 */
export function isFreshPod(pod: V1Pod): boolean {
  const s = pod.status ?? {};
  return (
    (s.phase === undefined || s.phase === "Pending") &&
    pod.metadata?.deletionTimestamp == null &&
    (s.containerStatuses ?? []).every(
      (c) => c.state?.running == null && c.state?.terminated == null && c.state?.waiting == null,
    ) &&
    !(s.conditions ?? []).some(
      (c) =>
        (c.type === "DisruptionTarget" && c.status === "True") ||
        (c.type === "PodScheduled" && c.status === "False"),
    )
  );
}
