/**
 * Stuck work (scenario R14) on a real control plane: a runner pod that never starts (no node
 * runs it) fails with PodPendingTimeout / job_stalled within the timeout and its Job is stopped;
 * a runner that outlives activeDeadlineSeconds fails with DeadlineExceeded / deadline_exceeded.
 */
import { join } from "node:path";
import { randomUUID } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { KubeConfig } from "@kubernetes/client-node";
import { injectKube } from "../harness/vitest.ts";
import { startKubeletDouble, type KubeletDouble } from "../harness/kubelet-double.ts";
import { projectNode } from "../harness/repo.ts";
import { freePort } from "../harness/ports.ts";
import type { TempDir } from "../harness/proc.ts";
import {
  operatorTestEnv,
  behave,
  clients,
  createPrediction,
  fakeRunnerCommand,
  jobsOf,
  startOperator,
  testPrediction,
  waitFor,
  waitForPhase,
  type OperatorProcess,
} from "../builders/operator-cluster.ts";

const namespace = `op-stuck-${randomUUID().slice(0, 8)}`;
let admin: KubeConfig;
let kubelet: KubeletDouble | undefined;
let tmp: TempDir;
let operator: OperatorProcess;

beforeAll(async () => {
  const env = await operatorTestEnv("operator-stuck", namespace);
  const { sa } = env;
  ({ admin, tmp } = env);
  operator = startOperator(projectNode(), {
    kubeconfigPath: sa.kubeconfigPath,
    namespace,
    port: await freePort(),
    logPath: join(tmp.path, "operator.log"),
    env: {
      RUNNER_PENDING_TIMEOUT_SECONDS: "4",
      RUNNER_ACTIVE_DEADLINE_SECONDS: "8",
      RUNNER_TERMINAL_GRACE_SECONDS: "1",
    },
  });
});

afterAll(async () => {
  await operator?.kill("SIGTERM");
  await kubelet?.stop();
  await clients(admin)
    .core.deleteNamespace({ name: namespace })
    .catch(() => undefined);
});

describe("stuck runner Jobs", () => {
  it("a pod that never starts fails with PodPendingTimeout and its Job is stopped", async () => {
    const r = testPrediction(namespace, behave(0));
    const name = r.metadata.name ?? "";
    const t0 = Date.now();
    await createPrediction(admin, r);
    const failed = await waitForPhase(admin, namespace, name, "Failed", 60_000);
    expect(Date.now() - t0).toBeGreaterThanOrEqual(3_500);
    expect(failed.status?.failure).toMatchObject({ reason: "PodPendingTimeout", errorCode: "job_stalled" });
    await waitFor(
      "the stalled Job deleted",
      async () => (await jobsOf(admin, namespace, name)).length === 0,
      60_000,
    );
  });

  it("a runner past activeDeadlineSeconds fails with DeadlineExceeded", async () => {
    kubelet = await startKubeletDouble({
      kubeconfigPath: injectKube().kubeconfigPath,
      namespace,
      resolveCommand: fakeRunnerCommand(projectNode()),
    });
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
