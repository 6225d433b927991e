/**
 * Stuck work (scenario R14) on a real control plane: a runner pod that never starts (no node
 * runs it) fails with PodPendingTimeout / job_stalled within the timeout and its Job is stopped;
 * a runner that outlives activeDeadlineSeconds fails with DeadlineExceeded / deadline_exceeded.
 */
import { randomUUID } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { KubeConfig } from "@kubernetes/client-node";
import { waitFor } from "../harness/proc.ts";
import {
  OperatorCluster,
  behave,
  createPrediction,
  jobsOf,
  testPrediction,
  waitForPhase,
} from "../builders/operator-cluster.ts";

const namespace = `op-stuck-${randomUUID().slice(0, 8)}`;
let cluster: OperatorCluster;
let admin: KubeConfig;

// No kubelet double at first: the first runner pod is never started.
beforeAll(async () => {
  cluster = await OperatorCluster.start("operator-stuck", namespace);
  admin = cluster.admin;
  await cluster.startOperator({
    env: {
      // The second case needs the kubelet double to start its pod within the pending timeout:
      // 4 s was too short on a loaded machine (the pod failed as PodPendingTimeout).
      RUNNER_PENDING_TIMEOUT_SECONDS: "8",
      RUNNER_ACTIVE_DEADLINE_SECONDS: "16",
      RUNNER_TERMINAL_GRACE_SECONDS: "1",
    },
  });
});

afterAll(() => cluster?.teardown());

describe("stuck runner Jobs", () => {
  it("a pod that never starts fails with PodPendingTimeout and its Job is stopped", async () => {
    const r = testPrediction(namespace, behave(0));
    const name = r.metadata.name ?? "";
    const t0 = Date.now();
    await createPrediction(admin, r);
    const failed = await waitForPhase(admin, namespace, name, "Failed", 60_000);
    expect(Date.now() - t0).toBeGreaterThanOrEqual(7_500);
    expect(failed.status?.failure).toMatchObject({ reason: "PodPendingTimeout", errorCode: "job_stalled" });
    await waitFor(
      "the stalled Job deleted",
      async () => (await jobsOf(admin, namespace, name)).length === 0,
      { timeoutMs: 60_000, intervalMs: 250 },
    );
  });

  it("a runner past activeDeadlineSeconds fails with DeadlineExceeded", async () => {
    await cluster.startKubelet();
    const r = testPrediction(namespace, behave(0, 120_000));
    const name = r.metadata.name ?? "";
    await createPrediction(admin, r);
    await waitForPhase(admin, namespace, name, "Processing", 30_000);
    const failed = await waitForPhase(admin, namespace, name, "Failed", 60_000);
    expect(failed.status?.failure).toMatchObject({
      reason: "DeadlineExceeded",
      errorCode: "deadline_exceeded",
    });
    expect(await jobsOf(admin, namespace, name)).toHaveLength(1);
  });
});
