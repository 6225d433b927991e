/**
 * The operator against a real control plane, running as the chart's ServiceAccount with the
 * chart's RBAC rules, with the kubelet double playing the nodes: create → exactly one Job; Job
 * success and failure → status; a SIGKILLed and restarted operator still makes one Job per
 * resource; deleting a resource garbage-collects its Job and Secret.
 */
import { randomUUID } from "node:crypto";
import { setTimeout as sleep } from "node:timers/promises";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { KubeConfig } from "@kubernetes/client-node";
import { loadKubeConfig } from "../harness/kube/service-account.ts";
import { waitFor } from "../harness/proc.ts";
import { GROUP, RESOURCES, VERSION } from "@causeway/contract";
import { clientNodeResources, KubernetesDispatcher } from "../../api/src/dispatch/kubernetes.ts";
import { pino } from "pino";
import {
  OperatorCluster,
  behave,
  clients,
  createPrediction,
  getPrediction,
  jobsOf,
  metricSum,
  testPrediction,
  waitForPhase,
  type OperatorProcess,
} from "../builders/operator-cluster.ts";

const namespace = `op-life-${randomUUID().slice(0, 8)}`;
let cluster: OperatorCluster;
let admin: KubeConfig;
let api: KubeConfig;
let operator: OperatorProcess;

beforeAll(async () => {
  cluster = await OperatorCluster.start("operator-lifecycle", namespace);
  process.stderr.write(`[operator-lifecycle] control plane ${cluster.kube.version}\n`);
  admin = cluster.admin;
  api = loadKubeConfig(await cluster.serviceAccount("causeway-api"));
  await cluster.startKubelet({
    terminationReason: (code) => (code === 0 ? "Completed" : code === 137 ? "OOMKilled" : "Error"),
  });
  operator = await cluster.startOperator();
});

afterAll(() => cluster?.teardown());

describe("operator on a real control plane", () => {
  it("creates exactly one Job and reports success as Completed", async () => {
    const r = testPrediction(namespace, behave(0));
    await createPrediction(api, r);
    const done = await waitForPhase(admin, namespace, r.metadata.name ?? "", "Completed");
    expect(done.status?.conditions?.find((c) => c.type === "Complete")?.reason).toBe("JobSucceeded");
    expect(done.status?.jobName).toBe(`cw-pred-${r.metadata.name}`);
    expect(done.status?.observedGeneration).toBe(1);
    const jobs = await jobsOf(admin, namespace, r.metadata.name ?? "");
    expect(jobs).toHaveLength(1);
    expect(jobs[0]?.metadata?.ownerReferences?.[0]).toMatchObject({
      kind: "Prediction",
      controller: true,
      blockOwnerDeletion: true,
    });
    // The callback Secret is the Job's: the garbage collector removes it with the Job.
    const secret = await clients(admin).core.readNamespacedSecret({
      namespace,
      name: `cw-pred-${r.metadata.name}-callback`,
    });
    expect(secret.metadata?.ownerReferences).toEqual([
      expect.objectContaining({ kind: "Job", name: jobs[0]?.metadata?.name, uid: jobs[0]?.metadata?.uid }),
    ]);
  });

  it.each([
    { exit: 3, reason: "RunnerFailed", errorCode: undefined },
    { exit: 1, reason: "RunnerCrashed", errorCode: "internal_error" },
    { exit: 137, reason: "OOMKilled", errorCode: "out_of_memory" },
  ])("maps runner exit $exit to Failed/$reason", async ({ exit, reason, errorCode }) => {
    const r = testPrediction(namespace, behave(exit));
    await createPrediction(api, r);
    const failed = await waitForPhase(admin, namespace, r.metadata.name ?? "", "Failed");
    expect(failed.status?.conditions?.find((c) => c.type === "Failed")?.reason).toBe(reason);
    expect(failed.status?.failure?.errorCode).toBe(errorCode);
    expect(await jobsOf(admin, namespace, r.metadata.name ?? "")).toHaveLength(1);
  });

  it("writes Kubernetes Events for outcomes (the steps before are in the conditions)", async () => {
    const outcomes = ["JobSucceeded", "RunnerFailed", "RunnerCrashed", "OOMKilled"];
    const events = await waitFor("an Event for each outcome", async () => {
      const list = await clients(admin).core.listNamespacedEvent({ namespace });
      const reasons = new Set(list.items.map((e) => e.reason));
      return outcomes.every((r) => reasons.has(r)) ? list.items : null;
    });
    expect(events.find((e) => e.reason === "OOMKilled")?.type).toBe("Warning");
    expect(events.map((e) => e.reason)).not.toContain("JobCreated");
  });

  it("survives SIGKILL mid-reconcile: still exactly one Job per resource, all reach a terminal phase", async () => {
    const all: { name: string; phase: string }[] = [];
    // Scenario R1, CI-sized: a few rounds, killing at a random point while resources are being
    // created, their Jobs made and their status written.
    for (let round = 0; round < 3; round++) {
      const rs = Array.from({ length: 4 }, (_, i) =>
        testPrediction(namespace, behave(i % 2 === 0 ? 0 : 3, 1500)),
      );
      for (const r of rs) await createPrediction(api, r);
      all.push(
        ...rs.map((r, i) => ({ name: r.metadata.name ?? "", phase: i % 2 === 0 ? "Completed" : "Failed" })),
      );
      await waitFor(
        "a first Job",
        async () => (await jobsOf(admin, namespace, rs[0]?.metadata.name ?? "")).length > 0,
        { timeoutMs: 30_000, intervalMs: 20 },
      );
      await sleep(Math.floor(Math.random() * 400));
      await operator.kill("SIGKILL");
      operator = await cluster.startOperator();
    }
    for (const { name, phase } of all) {
      await waitForPhase(admin, namespace, name, phase);
      expect(await jobsOf(admin, namespace, name)).toHaveLength(1);
    }
  });

  it("garbage-collects the Job and its Secret when the resource is deleted", async () => {
    const r = testPrediction(namespace, behave(0, 60_000));
    const name = r.metadata.name ?? "";
    await createPrediction(api, r);
    await waitForPhase(admin, namespace, name, "Processing");
    const { custom, core } = clients(admin);
    await custom.deleteNamespacedCustomObject({
      group: GROUP,
      version: VERSION,
      namespace,
      plural: RESOURCES.prediction.plural,
      name,
    });
    await waitFor("Job gone", async () => (await jobsOf(admin, namespace, name)).length === 0, {
      timeoutMs: 60_000,
      intervalMs: 250,
    });
    await waitFor(
      "Secret gone",
      async () => {
        const secrets = await core.listNamespacedSecret({ namespace });
        return !secrets.items.some((s) => s.metadata?.name === `cw-pred-${name}-callback`);
      },
      { timeoutMs: 60_000, intervalMs: 250 },
    );
    expect(await getPrediction(admin, namespace, name)).toBeNull();
  });

  it("the API's dispatcher creates the resource and mirrors runner reports; each writer keeps its own fields", async () => {
    const dispatcher = new KubernetesDispatcher({
      client: clientNodeResources(api),
      namespace,
      log: pino({ level: "silent" }),
    });
    const r = testPrediction(namespace, behave(0, 60_000));
    const name = r.metadata.name ?? "";
    await dispatcher.dispatch(r.spec, {
      traceparent: "00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01",
    });
    await dispatcher.dispatch(r.spec, {}); // a retried dispatch is a no-op (409)
    await waitForPhase(admin, namespace, name, "Processing");
    const job = (await jobsOf(admin, namespace, name))[0];
    const env = job?.spec?.template.spec?.containers[0]?.env ?? [];
    expect(env.find((e) => e.name === "TRACEPARENT")?.value).toBe(
      "00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01",
    );

    const job1 = { kind: "prediction" as const, job_id: r.spec.job_id };
    await dispatcher.mirrorStatus(job1, {
      status: "processing",
      processing_step: "model_loaded",
      progress_pct: 45,
      error_code: null,
      error_message: null,
    });
    await dispatcher.close();
    await waitFor(
      "reported progress",
      async () => (await getPrediction(admin, namespace, name))?.status?.reported?.progressPct === 45,
    );

    const d2 = new KubernetesDispatcher({
      client: clientNodeResources(api),
      namespace,
      log: pino({ level: "silent" }),
    });
    await d2.mirrorStatus(job1, {
      status: "completed",
      processing_step: "results_uploaded",
      progress_pct: 100,
      error_code: null,
      error_message: null,
    });
    await d2.close();
    const done = await waitForPhase(admin, namespace, name, "Completed");
    expect(done.status?.conditions?.find((c) => c.type === "Complete")?.reason).toBe(
      "RunnerReportedCompletion",
    );
    expect(done.status?.reported).toMatchObject({ status: "completed", progressPct: 100 });
    const managers = (done.metadata.managedFields ?? [])
      .filter((m) => m.subresource === "status")
      .map((m) => m.manager);
    expect(managers.sort()).toEqual(["causeway-api", "causeway-operator"]);
  });

  it("exports reconcile and workqueue metrics without per-object labels", async () => {
    const text = await operator.metrics();
    expect(metricSum(text, "workqueue_adds_total")).toBeGreaterThan(0);
    expect(metricSum(text, "causeway_reconcile_total")).toBeGreaterThan(0);
    expect(text).toMatch(/^causeway_leader 1$/m);
    expect(text).not.toMatch(/name="[0-9a-f]{8}-/);
  });
});
