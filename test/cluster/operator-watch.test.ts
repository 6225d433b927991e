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
import {
  OperatorCluster,
  behave,
  createPrediction,
  jobsOf,
  testPrediction,
  waitForPhase,
  WatchBreakingProxy,
  writeTokenKubeconfig,
} from "../builders/operator-cluster.ts";

const namespace = `op-watch-${randomUUID().slice(0, 8)}`;
let cluster: OperatorCluster;
let admin: KubeConfig;
let proxy: WatchBreakingProxy;

beforeAll(async () => {
  cluster = await OperatorCluster.start("operator-watch", namespace);
  const { kube, tmp, operatorAccess } = cluster;
  admin = cluster.admin;
  proxy = new WatchBreakingProxy(kube.server, kube.caData, 3);
  const port = await proxy.start();
  cluster.onTeardown(() => proxy.stop());
  const kubeconfigPath = join(tmp.path, "proxied.kubeconfig");
  writeTokenKubeconfig(kubeconfigPath, `http://127.0.0.1:${port}`, operatorAccess.token, namespace);
  await cluster.startKubelet();
  await cluster.startOperator({
    kubeconfigPath,
    env: {
      RESYNC_SECONDS: "3600",
      RUNNER_PENDING_TIMEOUT_SECONDS: "3600",
      RELIST_SECONDS: "3600",
      LEADER_ELECT: "false",
    },
  });
  const breaker = setInterval(() => proxy.breakWatches(), 2_000);
  cluster.onTeardown(() => clearInterval(breaker));
});

afterAll(() => cluster?.teardown());

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
