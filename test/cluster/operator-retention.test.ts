/**
 * Retention of finished resources on a real control plane: with
 * RESOURCE_TTL_SECONDS_AFTER_FINISHED the operator deletes a Prediction that has been finished
 * for that long, as the chart's ServiceAccount with the chart's RBAC, and leaves a running one
 * alone.
 */
import { randomUUID } from "node:crypto";
import { setTimeout as sleep } from "node:timers/promises";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { KubeConfig } from "@kubernetes/client-node";
import { waitFor } from "../harness/proc.ts";
import {
  OperatorCluster,
  behave,
  createPrediction,
  getPrediction,
  testPrediction,
  waitForPhase,
} from "../builders/operator-cluster.ts";

const namespace = `op-ttl-${randomUUID().slice(0, 8)}`;
let cluster: OperatorCluster;
let admin: KubeConfig;

beforeAll(async () => {
  cluster = await OperatorCluster.start("operator-retention", namespace);
  admin = cluster.admin;
  await cluster.startKubelet();
  await cluster.startOperator({ env: { RESOURCE_TTL_SECONDS_AFTER_FINISHED: "3" } });
});

afterAll(() => cluster?.teardown());

describe("retention of finished resources", () => {
  it("deletes a Prediction its TTL after it finished; a running one stays", async () => {
    const running = testPrediction(namespace, behave(0, 60_000));
    const runningName = running.metadata.name ?? "";
    await createPrediction(admin, running);
    await waitForPhase(admin, namespace, runningName, "Processing");

    const finished = testPrediction(namespace, behave(0));
    const name = finished.metadata.name ?? "";
    await createPrediction(admin, finished);
    await waitForPhase(admin, namespace, name, "Completed");
    const completedAt = Date.now();
    await waitFor(
      "the finished Prediction deleted",
      async () => (await getPrediction(admin, namespace, name)) === null,
      { timeoutMs: 60_000, intervalMs: 250 },
    );
    // Not before its TTL (3 s, less the time the Completed phase took to be seen here). Its Job
    // is the garbage collector's from here (Background propagation, as when an admin deletes a
    // resource: operator-lifecycle.test.ts), which on this control plane takes tens of seconds.
    expect(Date.now() - completedAt).toBeGreaterThanOrEqual(1_500);

    await sleep(1_000);
    expect((await getPrediction(admin, namespace, runningName))?.status?.phase).toBe("Processing");
  });
});
