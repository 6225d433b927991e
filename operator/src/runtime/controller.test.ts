import { describe, expect, it } from "vitest";
import {
  ApiException,
  type EventsV1Event,
  type V1Job,
  type V1Pod,
  type V1Secret,
} from "@kubernetes/client-node";
import { pino } from "pino";
import {
  aJob,
  aPod,
  aPrediction,
  JOB_ID,
  T0,
  testConfig,
  unreachableKubeConfig,
} from "../../../test/builders/prediction.ts";
import { LABELS, RESOURCES, type CausewayResource } from "@causeway/contract";
import type { OperatorStatus } from "../reconcile/runner-job.ts";
import type { ReconcileConfig } from "../reconcile/types.ts";
import type { FailureReport } from "./api-callback.ts";
import { FakeClock } from "./clock.ts";
import { Controller, queueKey, type ControllerCache } from "./controller.ts";
import { EventRecorder } from "./events.ts";
import type { KubeGateway, StatusWrite } from "./kube.ts";
import { OperatorMetrics } from "./metrics.ts";

/**
 * An in-memory apiserver with create/409, delete/404 and resourceVersion semantics, and the
 * informer cache over it (in step with it unless a test hides a Job or keeps an old copy).
 */
class FakeGateway implements KubeGateway {
  resources = new Map<string, CausewayResource>();
  jobs = new Map<string, V1Job>();
  secrets = new Map<string, V1Secret>();
  statusWrites: OperatorStatus[] = [];
  events: EventsV1Event[] = [];
  jobCreates = 0;
  /** Live reads and writes: what the pass costs the apiserver. */
  calls: string[] = [];
  /** Jobs the cache has not seen yet. */
  hiddenJobs = new Set<string>();
  /** Resources whose cached copy stays at this object. */
  staleResources = new Map<string, CausewayResource>();
  private version = 1;
  /** Called with what a write stored before its answer returns (a watch faster than the answer). */
  beforeAnswer: (stored: CausewayResource | V1Job) => void = () => undefined;

  readonly cache: ControllerCache = {
    resource: (_kind, _ns, name) => this.staleResources.get(name) ?? this.resources.get(name),
    job: (_ns, name) => (this.hiddenJobs.has(name) ? undefined : this.jobs.get(name)),
  };

  /** Stores a resource as the apiserver would (with a resourceVersion). */
  put(resource: CausewayResource): void {
    resource.metadata.resourceVersion = String(this.version++);
    this.resources.set(resource.metadata.name ?? "", resource);
  }

  async getJob(_ns: string, name: string) {
    this.calls.push("getJob");
    return structuredClone(this.jobs.get(name) ?? null);
  }
  async createJob(job: V1Job) {
    this.calls.push("createJob");
    this.jobCreates += 1;
    const name = job.metadata?.name ?? "";
    if (this.jobs.has(name)) return "exists" as const;
    const created: V1Job = {
      ...job,
      metadata: {
        ...job.metadata,
        creationTimestamp: T0,
        uid: `uid-${name}`,
        resourceVersion: String(this.version++),
      },
      status: {},
    };
    this.jobs.set(name, created);
    this.beforeAnswer(structuredClone(created));
    return structuredClone(created);
  }
  async deleteJob(_ns: string, name: string) {
    this.calls.push("deleteJob");
    this.jobs.delete(name);
  }
  async deleteResource(resource: CausewayResource, pre: { uid: string; resourceVersion: string }) {
    this.calls.push("deleteResource");
    const name = resource.metadata.name ?? "";
    const stored = this.resources.get(name);
    if (!stored) return "gone" as const;
    if (stored.metadata.uid !== pre.uid || stored.metadata.resourceVersion !== pre.resourceVersion)
      return "conflict" as const;
    this.resources.delete(name);
    return "deleted" as const;
  }
  async createSecret(secret: V1Secret) {
    this.calls.push("createSecret");
    const name = secret.metadata?.name ?? "";
    if (this.secrets.has(name)) return "exists" as const;
    this.secrets.set(name, secret);
    return "created" as const;
  }
  async applyStatus(resource: CausewayResource, status: OperatorStatus): Promise<StatusWrite> {
    this.calls.push("applyStatus");
    const stored = this.resources.get(resource.metadata.name ?? "");
    if (stored && stored.metadata.resourceVersion !== resource.metadata.resourceVersion) return "conflict";
    this.statusWrites.push(status);
    if (!stored) return { resourceVersion: undefined };
    const next = structuredClone(stored);
    next.status = { ...status, reported: stored.status?.reported };
    this.put(next);
    this.beforeAnswer(structuredClone(next));
    return { resourceVersion: next.metadata.resourceVersion };
  }
  async createEvent(_ns: string, event: EventsV1Event) {
    this.calls.push("createEvent");
    this.events.push(event);
  }
  async patchEvent() {}

  /** Another leader created `job`, and this replica's cache has not seen it yet. */
  jobNotYetCached(job: V1Job): void {
    const name = job.metadata?.name ?? "";
    this.jobs.set(name, job);
    this.hiddenJobs.add(name);
  }
}

function setup(config: Partial<ReconcileConfig> = {}) {
  const kc = unreachableKubeConfig();
  const reports: FailureReport[] = [];
  const gateway = new FakeGateway();
  const clock = new FakeClock(T0.getTime());
  const log = pino({ level: "silent" });
  const metrics = new OperatorMetrics(false);
  const controller = new Controller({
    kc,
    namespace: "causeway",
    gateway,
    config: testConfig(config),
    clock,
    log,
    metrics,
    recorder: new EventRecorder({ gateway, clock, log, instance: "op-0" }),
    concurrency: 1,
    relistIntervalMs: 600_000,
    staleAfterMs: 120_000,
    cache: gateway.cache,
    reportFailure: async (report) => {
      reports.push(report);
    },
  });
  return { gateway, controller, metrics, clock, reports };
}

const key = queueKey("prediction", "causeway", JOB_ID);

describe("Controller.reconcile: creating the Job", () => {
  it("creates one Job, then its Secret owned by it, writes status once, records no Event", async () => {
    const { gateway, controller } = setup();
    gateway.put(aPrediction().build());
    const first = await controller.reconcile(key);
    expect(first.requeueAfterMs).toBe(300_000);
    expect([...gateway.jobs.keys()]).toEqual([`cw-pred-${JOB_ID}`]);
    expect([...gateway.secrets.values()].map((s) => s.metadata?.ownerReferences)).toEqual([
      [{ apiVersion: "batch/v1", kind: "Job", name: `cw-pred-${JOB_ID}`, uid: `uid-cw-pred-${JOB_ID}` }],
    ]);
    expect(gateway.statusWrites).toHaveLength(1);
    expect(gateway.events).toEqual([]);
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
    gateway.put(resource);
    gateway.jobNotYetCached(aJob(resource).build());
    await controller.reconcile(key);
    expect(gateway.jobs.size).toBe(1);
    expect(gateway.statusWrites.at(-1)?.phase).toBe("Pending");
  });

  it("does not adopt a same-named Job of an earlier resource: waits, writes nothing", async () => {
    const { gateway, controller } = setup();
    const resource = aPrediction().build();
    gateway.put(resource);
    gateway.jobNotYetCached(aJob(resource).ownedBy("old-uid").build());
    expect(await controller.reconcile(key)).toEqual({ requeueAfterMs: 5_000 });
    expect(gateway.statusWrites).toHaveLength(0);
  });

  it("a Job that keeps appearing and vanishing between reads is an error for the queue's backoff", async () => {
    const { gateway, controller } = setup();
    gateway.put(aPrediction().build());
    gateway.createJob = async () => "exists";
    await expect(controller.reconcile(key)).rejects.toThrow(/keeps changing/);
    expect(gateway.statusWrites).toHaveLength(0);
  });
});

describe("Controller.reconcile: errors, deleted and vanished Jobs", () => {
  it("counts errors and rethrows them for the queue's backoff", async () => {
    const { gateway, controller, metrics } = setup();
    gateway.put(aPrediction().build());
    gateway.createJob = async () => {
      throw Object.assign(new Error("service unavailable"), { code: 503 });
    };
    await expect(controller.reconcile(key)).rejects.toThrow("service unavailable");
    expect(gateway.statusWrites).toHaveLength(0);
    expect((await metrics.reconcileErrors.get()).values[0]?.value).toBe(1);
  });

  it("a finished Job deleted by its TTL before a pass read it: the outcome comes from its final state", async () => {
    const { gateway, controller } = setup();
    const resource = aPrediction().created().build();
    gateway.put(resource);
    const finished = aJob(resource).condition("Complete").build();
    // The Job informer's delete event carried the final object; the Job itself is gone.
    (controller as unknown as { rememberDeleted(job: V1Job): void }).rememberDeleted(finished);
    await controller.reconcile(key);
    expect(gateway.statusWrites.at(-1)?.phase).toBe("Completed");
  });

  it("a created Job that vanished without a trace fails as JobMissing only after a grace", async () => {
    const { gateway, controller, clock } = setup();
    gateway.put(aPrediction().created().build());
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

describe("Controller.reconcile: reads from the caches", () => {
  it("a whole life costs only writes: no live read of the resource or its Job", async () => {
    const { gateway, controller } = setup();
    gateway.put(aPrediction().build());
    await controller.reconcile(key);
    const stored = gateway.resources.get(JOB_ID);
    if (!stored) throw new Error("resource gone");
    const jobName = `cw-pred-${JOB_ID}`;
    gateway.jobs.set(jobName, aJob(stored).condition("Complete").build());
    await controller.reconcile(key);
    // Settled: further events change nothing and cost nothing.
    await controller.reconcile(key);
    expect(gateway.resources.get(JOB_ID)?.status?.phase).toBe("Completed");
    // Two creates, two status writes, one Event for the outcome: nothing deletes the Secret.
    expect(gateway.calls).toEqual(["createJob", "createSecret", "applyStatus", "applyStatus", "createEvent"]);
  });

  it("a status computed from a stale cached copy meets the resourceVersion: no write, no Event", async () => {
    const { gateway, controller } = setup();
    const old = aPrediction().build();
    gateway.put(old);
    gateway.staleResources.set(JOB_ID, structuredClone(old));
    // Someone else (the API's mirror) moved the resource on since the cache last saw it.
    const newer = structuredClone(old);
    newer.metadata.annotations = { touched: "yes" };
    gateway.put(newer);
    expect(await controller.reconcile(key)).toEqual({});
    expect(gateway.statusWrites).toHaveLength(0);
    expect(gateway.events).toHaveLength(0);
    // The newer version's event brings the key back: that pass adopts the Job it created.
    gateway.staleResources.clear();
    await controller.reconcile(key);
    expect(gateway.jobCreates).toBe(1);
    expect(gateway.statusWrites.at(-1)?.phase).toBe("Pending");
  });

  it("skips a cached copy its own status write has already superseded", async () => {
    const { gateway, controller } = setup();
    const resource = aPrediction().build();
    gateway.put(resource);
    const before = structuredClone(resource);
    await controller.reconcile(key);
    const calls = gateway.calls.length;
    // The Job's add event arrives before the watch event of the status write.
    gateway.staleResources.set(JOB_ID, before);
    expect(await controller.reconcile(key)).toEqual({});
    expect(gateway.calls).toHaveLength(calls);
  });
});

/** The watch-event handlers, which decide whether an event runs a pass at all. */
interface EventHandlers {
  enqueueOwner(source: "job" | "pod", obj: V1Job | V1Pod, type: "add" | "update" | "delete"): void;
  onResourceEvent(kind: "prediction", obj: CausewayResource, type: "add" | "update" | "delete"): void;
}

/** A runner pod with the labels the operator's Jobs give their pods. */
function runnerPod(pod: V1Pod): V1Pod {
  pod.metadata = {
    ...pod.metadata,
    namespace: "causeway",
    labels: { [LABELS.kind]: RESOURCES.prediction.singular, [LABELS.resource]: JOB_ID },
  };
  return pod;
}

/** causeway_reconcile_triggers_total as "source/outcome" → count. */
async function triggers(metrics: OperatorMetrics): Promise<Record<string, number>> {
  const { values } = await metrics.reconcileTriggers.get();
  return Object.fromEntries(values.map((v) => [`${v.labels.source}/${v.labels.outcome}`, v.value]));
}

describe("Controller: which watch events run a pass", () => {
  it("the add event of the Job it has just created runs none; the Job's later updates do", async () => {
    const { gateway, controller, metrics } = setup();
    gateway.put(aPrediction().build());
    await controller.reconcile(key);
    const handlers = controller as unknown as EventHandlers;
    const created = gateway.jobs.get(`cw-pred-${JOB_ID}`);
    if (!created) throw new Error("no Job");
    handlers.enqueueOwner("job", created, "add");
    expect(await triggers(metrics)).toEqual({ "job/own_job": 1 });
    handlers.enqueueOwner("job", { ...created, status: { succeeded: 1 } }, "update");
    expect((await triggers(metrics))["job/queued"]).toBe(1);
  });

  it("for a terminal resource only a Job that still runs matters", async () => {
    const { gateway, controller, metrics } = setup();
    gateway.put(aPrediction().status({ phase: "Completed" }).build());
    const stored = gateway.resources.get(JOB_ID);
    if (!stored) throw new Error("resource gone");
    const handlers = controller as unknown as EventHandlers;
    handlers.enqueueOwner("pod", runnerPod(aPod().terminated(0, "Completed").build()), "update");
    handlers.enqueueOwner("job", aJob(stored).condition("Complete").build(), "update");
    handlers.enqueueOwner("job", aJob(stored).condition("Complete").build(), "delete");
    expect(await triggers(metrics)).toEqual({ "job/terminal": 2, "pod/terminal": 1 });
    // A Job still active after its resource ended: cleanup may have to stop it.
    handlers.enqueueOwner("job", aJob(stored).build(), "update");
    expect((await triggers(metrics))["job/queued"]).toBe(1);
  });

  it("an event on a copy its own write superseded waits for that write's event", async () => {
    const { gateway, controller, metrics } = setup();
    const resource = aPrediction().build();
    gateway.put(resource);
    const before = structuredClone(resource);
    await controller.reconcile(key);
    const written = gateway.resources.get(JOB_ID);
    if (!written) throw new Error("resource gone");
    const handlers = controller as unknown as EventHandlers;
    gateway.staleResources.set(JOB_ID, before);
    handlers.enqueueOwner("pod", runnerPod(aPod().running(T0).build()), "update");
    expect(await triggers(metrics)).toEqual({ "pod/deferred": 1 });
    // The cache catches up: the write's own event runs the deferred pass.
    gateway.staleResources.clear();
    handlers.onResourceEvent("prediction", written, "update");
    expect((await triggers(metrics))["resource/queued"]).toBe(1);
  });

  it("the event of its own status write runs no pass when nothing waited for it", async () => {
    const { gateway, controller, metrics } = setup();
    gateway.put(aPrediction().build());
    await controller.reconcile(key);
    const written = gateway.resources.get(JOB_ID);
    if (!written) throw new Error("resource gone");
    (controller as unknown as EventHandlers).onResourceEvent("prediction", written, "update");
    expect(await triggers(metrics)).toEqual({ "resource/own_write": 1 });
  });
});

describe("Controller: the watch is faster than a write's answer", () => {
  it("the events of its own Job create and status write, arriving before their answers, run no pass", async () => {
    const { gateway, controller, metrics } = setup();
    gateway.put(aPrediction().build());
    const handlers = controller as unknown as EventHandlers;
    gateway.beforeAnswer = (stored) => {
      if (stored.kind === "Job") handlers.enqueueOwner("job", stored as V1Job, "add");
      else handlers.onResourceEvent("prediction", stored as CausewayResource, "update");
    };
    await controller.reconcile(key);
    expect(await triggers(metrics)).toEqual({ "job/own_job": 1, "resource/own_write": 1 });
    // Someone else's change arriving during a write is not mistaken for it.
    const stored = gateway.resources.get(JOB_ID);
    if (!stored) throw new Error("resource gone");
    gateway.beforeAnswer = () => {
      const other = structuredClone(stored);
      other.metadata.resourceVersion = "999";
      handlers.onResourceEvent("prediction", other, "update");
    };
    gateway.jobs.set(`cw-pred-${JOB_ID}`, aJob(stored).condition("Complete").build());
    await controller.reconcile(key);
    expect((await triggers(metrics))["resource/queued"]).toBe(1);
  });
});

describe("Controller: updates that change nothing a decision reads", () => {
  it("a Job's ready count, a new pending pod or its finalizer run no pass; a pod that starts does", async () => {
    const { gateway, controller, metrics } = setup();
    gateway.put(aPrediction().created().build());
    const stored = gateway.resources.get(JOB_ID);
    if (!stored) throw new Error("resource gone");
    const handlers = controller as unknown as EventHandlers;
    const job = aJob(stored).build();
    handlers.enqueueOwner("job", job, "add");
    handlers.enqueueOwner("job", { ...job, status: { ...job.status, ready: 1, active: 1 } }, "update");
    const pod = runnerPod(aPod().build());
    handlers.enqueueOwner("pod", pod, "add");
    const tracked = structuredClone(pod);
    tracked.metadata = { ...tracked.metadata, finalizers: ["batch.kubernetes.io/job-tracking"] };
    handlers.enqueueOwner("pod", tracked, "update");
    expect(await triggers(metrics)).toEqual({
      "job/queued": 1,
      "job/unchanged": 1,
      "pod/unchanged": 2,
    });
    handlers.enqueueOwner("pod", runnerPod(aPod().running(T0).build()), "update");
    expect((await triggers(metrics))["pod/queued"]).toBe(1);
  });
});

/** A client-node error as the apiserver's answer produces it: the HTTP code and the Status body. */
function apiError(code: number, message: string): ApiException<string> {
  const body = JSON.stringify({ kind: "Status", apiVersion: "v1", status: "Failure", message, code });
  return new ApiException(code, "Unknown API Status Code!", body, {});
}

const WEBHOOK = 'admission webhook "images.policy.example" denied the request: image is not signed';

function failedCondition(status: OperatorStatus | undefined) {
  return status?.conditions?.find((c) => c.type === "Failed" && c.status === "True");
}

describe("Controller.reconcile: a Job create the apiserver refuses for good", () => {
  it.each([
    { code: 400, message: 'Job in version "v1" cannot be handled as a Job' },
    { code: 403, message: WEBHOOK },
    {
      code: 422,
      message: 'Job.batch "x" is invalid: spec.template.spec.containers[0].image: Required value',
    },
  ])(
    "HTTP $code: Failed as JobRejected, a Warning quoting the apiserver, one report, no retry",
    async (c) => {
      const { gateway, controller, reports } = setup();
      gateway.put(aPrediction().build());
      gateway.createJob = async () => {
        gateway.jobCreates += 1;
        throw apiError(c.code, c.message);
      };
      // Not thrown: the queue's backoff would only repeat the refusal forever.
      const result = await controller.reconcile(key);
      expect(result).toEqual({ requeueAfterMs: null });
      const status = gateway.statusWrites.at(-1);
      expect(status?.phase).toBe("Failed");
      expect(failedCondition(status)?.reason).toBe("JobRejected");
      expect(failedCondition(status)?.message).toContain(`(HTTP ${c.code}): ${c.message}`);
      expect(status?.failure).toMatchObject({ reason: "JobRejected", errorCode: "internal_error" });
      expect(gateway.events.map((e) => [e.type, e.reason])).toEqual([["Warning", "JobRejected"]]);
      expect(gateway.events[0]?.note).toContain(c.message);
      expect(reports).toEqual([
        {
          kind: "prediction",
          jobId: JOB_ID,
          errorCode: "internal_error",
          message: failedCondition(status)?.message,
        },
      ]);
      expect(gateway.secrets.size).toBe(0);
      // The resource is terminal: later passes create nothing and report nothing.
      await controller.reconcile(key);
      expect(gateway.jobCreates).toBe(1);
      expect(reports).toHaveLength(1);
      expect(gateway.statusWrites).toHaveLength(1);
    },
  );

  it("clips a long apiserver message in the Event and the condition", async () => {
    const { gateway, controller } = setup();
    gateway.put(aPrediction().build());
    gateway.createJob = async () => {
      throw apiError(422, `${WEBHOOK} ${"y".repeat(10_000)}`);
    };
    await controller.reconcile(key);
    expect(failedCondition(gateway.statusWrites.at(-1))?.message.length).toBeLessThan(700);
    expect(gateway.events[0]?.note?.length).toBeLessThan(700);
  });

  it.each([
    { name: "429", err: apiError(429, "too many requests") },
    { name: "500", err: apiError(500, "etcdserver: request timed out") },
    { name: "503", err: apiError(503, "service unavailable") },
    {
      name: "a network error",
      err: Object.assign(new Error("connect ECONNREFUSED"), { code: "ECONNREFUSED" }),
    },
  ])("$name is transient: thrown for the queue's backoff, no status, no Event, no report", async (c) => {
    const { gateway, controller, reports } = setup();
    gateway.put(aPrediction().build());
    gateway.createJob = async () => {
      throw c.err;
    };
    await expect(controller.reconcile(key)).rejects.toBe(c.err);
    expect(gateway.statusWrites).toEqual([]);
    expect(gateway.events).toEqual([]);
    expect(reports).toEqual([]);
  });
});

describe("Controller: a resource deleted in the cluster", () => {
  /** Deletes the stored resource and delivers the informer's delete event with its last state. */
  function deleteInCluster(gateway: FakeGateway, controller: Controller): CausewayResource {
    const last = gateway.resources.get(JOB_ID);
    if (!last) throw new Error("no resource");
    gateway.resources.delete(JOB_ID);
    (controller as unknown as EventHandlers).onResourceEvent("prediction", structuredClone(last), "delete");
    return last;
  }

  it("while its job runs (an admin's cancel): the API is told once, as internal_error", async () => {
    const { gateway, controller, reports } = setup();
    gateway.put(aPrediction().created().status({ phase: "Processing" }).build());
    deleteInCluster(gateway, controller);
    expect(await controller.reconcile(key)).toEqual({});
    expect(reports).toEqual([
      {
        kind: "prediction",
        jobId: JOB_ID,
        errorCode: "internal_error",
        message: `The job's Prediction resource ${JOB_ID} was deleted in the cluster before the job finished.`,
      },
    ]);
    // No status write, no Event about an object that is gone.
    expect(gateway.calls).toEqual([]);
    // Later passes of the key, and a replayed delete event of the same resource, report nothing.
    await controller.reconcile(key);
    (controller as unknown as EventHandlers).onResourceEvent(
      "prediction",
      aPrediction().created().status({ phase: "Processing" }).build(),
      "delete",
    );
    await controller.reconcile(key);
    expect(reports).toHaveLength(1);
  });

  it("after it finished: nothing is reported", async () => {
    const { gateway, controller, reports } = setup();
    gateway.put(aPrediction().created().build());
    const stored = gateway.resources.get(JOB_ID);
    if (!stored) throw new Error("no resource");
    gateway.jobs.set(`cw-pred-${JOB_ID}`, aJob(stored).condition("Complete").build());
    await controller.reconcile(key);
    expect(gateway.resources.get(JOB_ID)?.status?.phase).toBe("Completed");
    deleteInCluster(gateway, controller);
    await controller.reconcile(key);
    expect(reports).toEqual([]);
  });

  it("deleted and recreated under its name before a pass: the old job is reported, the new one runs", async () => {
    const { gateway, controller, reports } = setup();
    gateway.put(aPrediction().created().status({ phase: "Processing" }).build());
    deleteInCluster(gateway, controller);
    gateway.put(aPrediction().uid("uid-2").build());
    await controller.reconcile(key);
    expect(reports.map((r) => r.errorCode)).toEqual(["internal_error"]);
    expect(gateway.statusWrites.at(-1)?.phase).toBe("Pending");
  });
});

describe("Controller: a finished resource's TTL (RESOURCE_TTL_SECONDS_AFTER_FINISHED)", () => {
  const TTL = 3600;

  it("requeues at the TTL when it finishes, then deletes it preconditioned on uid and resourceVersion", async () => {
    const { gateway, controller, clock, reports } = setup({ resourceTtlSecondsAfterFinished: TTL });
    gateway.put(aPrediction().created().build());
    const stored = gateway.resources.get(JOB_ID);
    if (!stored) throw new Error("no resource");
    gateway.jobs.set(`cw-pred-${JOB_ID}`, aJob(stored).condition("Complete").build());
    expect(await controller.reconcile(key)).toEqual({ requeueAfterMs: TTL * 1000 });
    expect(gateway.resources.get(JOB_ID)?.status?.phase).toBe("Completed");
    // Before the TTL: kept, and looked at again when it falls due.
    clock.advance(TTL * 1000 - 60_000);
    expect(await controller.reconcile(key)).toEqual({ requeueAfterMs: 60_000 });
    expect(gateway.resources.has(JOB_ID)).toBe(true);
    clock.advance(60_000);
    const last = structuredClone(gateway.resources.get(JOB_ID) as CausewayResource);
    await controller.reconcile(key);
    expect(gateway.resources.has(JOB_ID)).toBe(false);
    expect(gateway.calls.filter((c) => c === "deleteResource")).toHaveLength(1);
    // Its own delete event: a finished resource, so nothing to tell the API.
    (controller as unknown as EventHandlers).onResourceEvent("prediction", last, "delete");
    await controller.reconcile(key);
    expect(reports).toEqual([]);
  });

  it("never deletes a resource recreated under the same name (uid precondition)", async () => {
    const { gateway, controller, clock } = setup({ resourceTtlSecondsAfterFinished: TTL });
    const old = aPrediction()
      .created()
      .status({ phase: "Completed", completionTime: T0.toISOString() })
      .build();
    gateway.put(old);
    // The cache still holds the finished copy; the apiserver has a new resource of the same name.
    gateway.staleResources.set(JOB_ID, structuredClone(gateway.resources.get(JOB_ID) as CausewayResource));
    gateway.put(aPrediction().uid("uid-2").build());
    clock.advance(TTL * 1000);
    await controller.reconcile(key);
    expect(gateway.calls).toEqual(["deleteResource"]);
    expect(gateway.resources.get(JOB_ID)?.metadata.uid).toBe("uid-2");
  });

  it("unset (the default): a finished resource is kept forever", async () => {
    const { gateway, controller, clock } = setup();
    gateway.put(
      aPrediction().created().status({ phase: "Completed", completionTime: T0.toISOString() }).build(),
    );
    clock.advance(365 * 24 * 3600 * 1000);
    expect(await controller.reconcile(key)).toEqual({ requeueAfterMs: null });
    expect(gateway.resources.has(JOB_ID)).toBe(true);
    expect(gateway.calls).toEqual([]);
  });
});
