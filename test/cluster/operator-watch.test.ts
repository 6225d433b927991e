/**
 * Watch disruption (scenario R2, CI-sized): the operator reaches the API server through a proxy
 * that cuts every watch stream every few seconds and answers every third resumed watch with
 * 410 Expired. Status requeues are set far out, so only the watches can drive the transitions:
 * none may be missed.
 */
import { join } from "node:path";
import { randomUUID } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { KubeConfig } from "@kubernetes/client-node";
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
  waitForPhase,
  WatchBreakingProxy,
  writeTokenKubeconfig,
  type OperatorProcess,
} from "../builders/operator-cluster.ts";

const namespace = `op-watch-${randomUUID().slice(0, 8)}`;
let admin: KubeConfig;
let kubelet: KubeletDouble;
let tmp: TempDir;
let operator: OperatorProcess;
let proxy: WatchBreakingProxy;
let breaker: NodeJS.Timeout;

beforeAll(async () => {
  const env = await operatorTestEnv("operator-watch", namespace);
  const { kube, sa } = env;
  ({ admin, tmp } = env);
  proxy = new WatchBreakingProxy(kube.server, kube.caData, 3);
  const port = await proxy.start();
  const kubeconfigPath = join(tmp.path, "proxied.kubeconfig");
  writeTokenKubeconfig(kubeconfigPath, `http://127.0.0.1:${port}`, sa.token, namespace);
  kubelet = await startKubeletDouble({
    kubeconfigPath: kube.kubeconfigPath,
    namespace,
    resolveCommand: fakeRunnerCommand(projectNode()),
  });
  operator = startOperator(projectNode(), {
    kubeconfigPath,
    namespace,
    port: await freePort(),
    logPath: join(tmp.path, "operator.log"),
    env: {
      RESYNC_SECONDS: "3600",
      RUNNER_PENDING_TIMEOUT_SECONDS: "3600",
      RELIST_SECONDS: "3600",
      LEADER_ELECT: "false",
    },
  });
  breaker = setInterval(() => proxy.breakWatches(), 2_000);
});

afterAll(async () => {
  clearInterval(breaker);
  await operator?.kill("SIGTERM");
  await kubelet?.stop();
  await proxy?.stop();
  await clients(admin)
    .core.deleteNamespace({ name: namespace })
    .catch(() => undefined);
});

describe("operator under watch disruption", () => {
  it("misses no transition while watches break and expire", async () => {
    const rs = Array.from({ length: 5 }, (_, i) =>
      testPrediction(namespace, behave(i === 2 ? 3 : 0, 2500 + i * 700)),
    );
    for (const r of rs) await createPrediction(admin, r);
    for (const [i, r] of rs.entries()) {
      const name = r.metadata.name ?? "";
      await waitForPhase(admin, namespace, name, i === 2 ? "Failed" : "Completed", 120_000);
      expect(await jobsOf(admin, namespace, name)).toHaveLength(1);
    }
    expect(proxy.broken).toBeGreaterThan(0);
    expect(proxy.gone).toBeGreaterThan(0);
  });
});
