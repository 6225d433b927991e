import type { V1ContainerState, V1Pod, V1PodCondition, V1PodStatus } from "@kubernetes/client-node";

/** The container states the kubelet double reports. */
export type ContainerOutcome =
  | { kind: "waiting"; reason: string; message: string }
  | { kind: "running"; startedAt: Date }
  | {
      kind: "terminated";
      startedAt: Date;
      finishedAt: Date;
      exitCode: number;
      reason: string;
      message?: string;
    };

function condition(type: string, status: boolean, now: Date, reason?: string): V1PodCondition {
  return { type, status: status ? "True" : "False", lastTransitionTime: now, ...(reason ? { reason } : {}) };
}

/**
 * The pod status a kubelet would write for a single-container pod in the given state: phase, the
 * standard conditions and the container status. Pure, so it is easy to check against real kubelets.
 */
export function podStatusFor(pod: V1Pod, outcome: ContainerOutcome, now: Date = new Date()): V1PodStatus {
  const container = pod.spec?.containers[0];
  const running = outcome.kind === "running";
  let state: V1ContainerState;
  let phase: string;
  if (outcome.kind === "waiting") {
    state = { waiting: { reason: outcome.reason, message: outcome.message } };
    phase = "Pending";
  } else if (outcome.kind === "running") {
    state = { running: { startedAt: outcome.startedAt } };
    phase = "Running";
  } else {
    state = {
      terminated: {
        exitCode: outcome.exitCode,
        reason: outcome.reason,
        startedAt: outcome.startedAt,
        finishedAt: outcome.finishedAt,
        ...(outcome.message ? { message: outcome.message } : {}),
      },
    };
    phase = outcome.exitCode === 0 ? "Succeeded" : "Failed";
  }
  const terminated = outcome.kind === "terminated";
  const notReadyReason = terminated ? "PodCompleted" : running ? undefined : "ContainersNotReady";
  return {
    ...pod.status,
    phase,
    hostIP: "127.0.0.1",
    podIP: "127.0.0.1",
    podIPs: [{ ip: "127.0.0.1" }],
    startTime: pod.status?.startTime ?? now,
    conditions: [
      condition("PodScheduled", true, now),
      condition("Initialized", true, now, terminated ? "PodCompleted" : undefined),
      condition("ContainersReady", running, now, notReadyReason),
      condition("Ready", running, now, notReadyReason),
    ],
    containerStatuses: [
      {
        name: container?.name ?? "main",
        image: container?.image ?? "",
        imageID: "",
        ready: running,
        started: running,
        restartCount: 0,
        state,
      },
    ],
  };
}
