/**
 * Leader change (scenario R3, CI-sized): two operator replicas against one Lease. Exactly one
 * leads; when it is SIGKILLed mid-work the other takes over within leaseDuration + retry, and
 * every resource still ends with exactly one Job.
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
  type OperatorProcess,
} from "../builders/operator-cluster.ts";

const namespace = `op-leader-${randomUUID().slice(0, 8)}`;
let cluster: OperatorCluster;
let admin: KubeConfig;
let replicas: OperatorProcess[] = [];

const isLeader = async (op: OperatorProcess): Promise<boolean> => {
  try {
    return /^causeway_leader 1$/m.test(await op.metrics());
  } catch {
    return false;
  }
};

beforeAll(async () => {
  cluster = await OperatorCluster.start("operator-leader", namespace);
  admin = cluster.admin;
  await cluster.startKubelet();
  replicas = [await cluster.startOperator(), await cluster.startOperator()];
});

afterAll(() => cluster?.teardown());

describe("leader election", () => {
  it("has one leader; a successor takes over after SIGKILL with no duplicate Jobs", async () => {
    const leader = await waitFor("a leader", async () => {
      const flags = await Promise.all(replicas.map(isLeader));
      return flags.filter(Boolean).length === 1 ? replicas[flags.indexOf(true)] : null;
    });
    const follower = replicas.find((r) => r !== leader)!;
    expect(await isLeader(follower)).toBe(false);

    const rs = Array.from({ length: 4 }, () => testPrediction(namespace, behave(0, 1500)));
    for (const r of rs) await createPrediction(admin, r);
    await waitFor(
      "a first Job",
      async () => (await jobsOf(admin, namespace, rs[0]?.metadata.name ?? "")).length > 0,
      { timeoutMs: 30_000, intervalMs: 20 },
    );
    const killedAt = Date.now();
    await leader.kill("SIGKILL");
    replicas = [follower];
    await waitFor("the follower leads", () => isLeader(follower), { timeoutMs: 30_000 });
    // leaseDuration (4 s) + retry period (1 s, jittered) + slack for a loaded machine.
    expect(Date.now() - killedAt).toBeLessThan(10_000);
    for (const r of rs) {
      const name = r.metadata.name ?? "";
      await waitForPhase(admin, namespace, name, "Completed");
      expect(await jobsOf(admin, namespace, name)).toHaveLength(1);
    }
  });
});
