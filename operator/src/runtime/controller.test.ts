import { describe, expect, it } from "vitest";
import type { EventsV1Event, V1Job, V1Secret } from "@kubernetes/client-node";
import { pino } from "pino";
import {
  aJob,
  aPrediction,
  JOB_ID,
  T0,
  testConfig,
  unreachableKubeConfig,
} from "../../../test/builders/prediction.ts";
import type { CausewayResource } from "@causeway/contract";
import type { OperatorStatus } from "../reconcile/runner-job.ts";
import { FakeClock } from "./clock.ts";
import { Controller, queueKey } from "./controller.ts";
import { EventRecorder } from "./events.ts";
import type { KubeGateway } from "./kube.ts";
import { OperatorMetrics } from "./metrics.ts";

/** An in-memory apiserver with create/409 and delete/404 semantics. */
class FakeGateway implements KubeGateway {
  resources = new Map<string, CausewayResource>();
  jobs = new Map<string, V1Job>();
  secrets = new Map<string, V1Secret>();
  statusWrites: OperatorStatus[] = [];
  events: EventsV1Event[] = [];
  jobCreates = 0;

  async getResource(_kind: string, _ns: string, name: string) {
    return structuredClone(this.resources.get(name) ?? null);
  }
  async getJob(_ns: string, name: string) {
    return structuredClone(this.jobs.get(name) ?? null);
  }
  async createJob(job: V1Job) {
    this.jobCreates += 1;
    const name = job.metadata?.name ?? "";
    if (this.jobs.has(name)) return "exists" as const;
    this.jobs.set(name, { ...job, metadata: { ...job.metadata, creationTimestamp: T0 }, status: {} });
    return "created" as const;
  }
  async deleteJob(_ns: string, name: string) {
    this.jobs.delete(name);
  }
  async createSecret(secret: V1Secret) {
    const name = secret.metadata?.name ?? "";
    if (this.secrets.has(name)) return "exists" as const;
    this.secrets.set(name, secret);
    return "created" as const;
  }
  async deleteSecret(_ns: string, name: string) {
    this.secrets.delete(name);
  }
  async applyStatus(resource: CausewayResource, status: OperatorStatus) {
    this.statusWrites.push(status);
    const stored = this.resources.get(resource.metadata.name ?? "");
    if (stored) stored.status = { ...status, reported: stored.status?.reported };
  }
  async createEvent(_ns: string, event: EventsV1Event) {
    this.events.push(event);
  }
  async patchEvent() {}

  /** Another leader creates `job` right after this pass read "no Job". */
  jobAfterFirstRead(job: V1Job): void {
    const getJob = this.getJob.bind(this);
    let reads = 0;
    this.getJob = async (ns, name) => {
      reads += 1;
      if (reads > 1) return getJob(ns, name);
      this.jobs.set(name, job);
      return null;
    };
  }
}

function setup() {
  const kc = unreachableKubeConfig();
  const gateway = new FakeGateway();
  const clock = new FakeClock(T0.getTime());
  const log = pino({ level: "silent" });
  const metrics = new OperatorMetrics(false);
  const controller = new Controller({
    kc,
    namespace: "causeway",
    gateway,
    config: testConfig(),
    clock,
    log,
    metrics,
    recorder: new EventRecorder({ gateway, clock, log, instance: "op-0" }),
    concurrency: 1,
    relistIntervalMs: 600_000,
    staleAfterMs: 120_000,
  });
  return { gateway, controller, metrics, clock };
}

const key = queueKey("prediction", "causeway", JOB_ID);

describe("Controller.reconcile: creating the Job", () => {
  it("creates one Secret and one Job, writes status once, records an Event", async () => {
    const { gateway, controller } = setup();
    gateway.resources.set(JOB_ID, aPrediction().build());
    const first = await controller.reconcile(key);
    expect(first.requeueAfterMs).toBe(300_000);
    expect([...gateway.jobs.keys()]).toEqual([`cw-pred-${JOB_ID}`]);
    expect(gateway.secrets.size).toBe(1);
    expect(gateway.statusWrites).toHaveLength(1);
    expect(gateway.events.map((e) => e.reason)).toEqual(["JobCreated"]);
    // A second pass over the now-existing Job changes nothing and creates nothing.
    await controller.reconcile(key);
    expect(gateway.jobCreates).toBe(1);
    expect(gateway.statusWrites).toHaveLength(1);
  });

  it("a missing resource is done", async () => {
    const { gateway, controller } = setup();
    expect(await controller.reconcile(key)).toEqual({});
    expect(gateway.jobCreates).toBe(0);
  });

  it("a Job that appears between the read and the create (409) is adopted when it is ours", async () => {
    const { gateway, controller } = setup();
    const resource = aPrediction().build();
    gateway.resources.set(JOB_ID, resource);
    gateway.jobAfterFirstRead(aJob(resource).build());
    await controller.reconcile(key);
    expect(gateway.jobs.size).toBe(1);
    expect(gateway.statusWrites.at(-1)?.phase).toBe("Pending");
  });

  it("does not adopt a same-named Job of an earlier resource: waits, writes nothing", async () => {
    const { gateway, controller } = setup();
    const resource = aPrediction().build();
    gateway.resources.set(JOB_ID, resource);
    gateway.jobAfterFirstRead(aJob(resource).ownedBy("old-uid").build());
    expect(await controller.reconcile(key)).toEqual({ requeueAfterMs: 5_000 });
    expect(gateway.statusWrites).toHaveLength(0);
  });

  it("a Job that keeps appearing and vanishing between reads is an error for the queue's backoff", async () => {
    const { gateway, controller } = setup();
    gateway.resources.set(JOB_ID, aPrediction().build());
    gateway.createJob = async () => "exists";
    await expect(controller.reconcile(key)).rejects.toThrow(/keeps changing/);
    expect(gateway.statusWrites).toHaveLength(0);
  });
});

describe("Controller.reconcile: errors, deleted and vanished Jobs", () => {
  it("counts errors and rethrows them for the queue's backoff", async () => {
    const { gateway, controller, metrics } = setup();
    gateway.resources.set(JOB_ID, aPrediction().build());
    gateway.createJob = async () => {
      throw Object.assign(new Error("forbidden"), { code: 403 });
    };
    await expect(controller.reconcile(key)).rejects.toThrow("forbidden");
    expect(gateway.statusWrites).toHaveLength(0);
    expect((await metrics.reconcileErrors.get()).values[0]?.value).toBe(1);
  });

  it("a finished Job deleted by its TTL before a pass read it: the outcome comes from its final state", async () => {
    const { gateway, controller } = setup();
    const resource = aPrediction().created().build();
    gateway.resources.set(JOB_ID, resource);
    const finished = aJob(resource).condition("Complete").build();
    // The Job informer's delete event carried the final object; the Job itself is gone.
    (controller as unknown as { rememberDeleted(job: V1Job): void }).rememberDeleted(finished);
    await controller.reconcile(key);
    expect(gateway.statusWrites.at(-1)?.phase).toBe("Completed");
  });

  it("a created Job that vanished without a trace fails as JobMissing only after a grace", async () => {
    const { gateway, controller, clock } = setup();
    gateway.resources.set(JOB_ID, aPrediction().created().build());
    expect(await controller.reconcile(key)).toEqual({ requeueAfterMs: 1_000 });
    clock.advance(5_000);
    expect(await controller.reconcile(key)).toEqual({ requeueAfterMs: 1_000 });
    expect(gateway.statusWrites).toHaveLength(0);
    clock.advance(5_000);
    await controller.reconcile(key);
    expect(gateway.statusWrites.at(-1)?.conditions?.find((c) => c.type === "Failed")?.reason).toBe(
      "JobMissing",
    );
  });
});
