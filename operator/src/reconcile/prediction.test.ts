import { describe, expect, it } from "vitest";
import type { V1Job, V1Pod } from "@kubernetes/client-node";
import { aJob, aPod, aPrediction, at, JOB_ID, T0, testConfig } from "../../../test/builders/prediction.ts";
import type { PredictionResource } from "@causeway/contract";
import { reconcilePrediction } from "./prediction.ts";
import type { Decision, JobRejection, ReconcileConfig } from "./types.ts";

const config = testConfig();
const JOB = `cw-pred-${JOB_ID}`;

interface WantStatus {
  phase: string;
  conditions: Record<string, string>;
  errorCode?: string;
}

interface Case {
  name: string;
  resource: PredictionResource;
  job: V1Job | null;
  pods?: V1Pod[];
  now?: Date;
  /** When an earlier pass first found the Job missing. */
  jobMissingSince?: Date;
  /** The apiserver's permanent refusal of this pass's Job create. */
  jobRejected?: JobRejection;
  /** Settings that differ from testConfig(). */
  config?: Partial<ReconcileConfig>;
  /** Expected status summary, or null for "no status write". */
  wantStatus: WantStatus | null;
  /** Jobs that exist after the actions ran. */
  wantJobs: number;
  wantEvents: string[];
  wantActions?: string[];
  wantRequeueMs?: number | null;
}

const created = () => aPrediction().created();
const job = (r: PredictionResource) => aJob(r);
/** A resource as the cache holds it: with the resourceVersion the apiserver gave it. */
const stored = (r: PredictionResource): PredictionResource => {
  r.metadata.resourceVersion = "42";
  return r;
};
/** A resource that finished (Complete condition and completionTime) at `finished`. */
const completedAt = (finished: Date) =>
  stored(
    created()
      .status({
        phase: "Completed",
        completionTime: finished.toISOString(),
        conditions: [
          {
            type: "Created",
            status: "True",
            reason: "JobCreated",
            message: "",
            lastTransitionTime: T0.toISOString(),
          },
          {
            type: "Complete",
            status: "True",
            reason: "JobSucceeded",
            message: "",
            lastTransitionTime: finished.toISOString(),
          },
        ],
      })
      .build(),
  );
const HOUR = 3600;
/** A Status message as an admission webhook answers (422/403), longer than any condition should quote. */
const WEBHOOK_MESSAGE =
  'admission webhook "images.policy.example" denied the request: image registry.example/causeway:1.0.0 is not signed';

function summary(d: Decision): WantStatus | null {
  if (!d.status) return null;
  const conditions = Object.fromEntries(
    (d.status.conditions ?? []).map((c) => [c.type, `${c.status}/${c.reason}`]),
  );
  return {
    phase: d.status.phase ?? "",
    conditions,
    ...(d.status.failure ? { errorCode: d.status.failure.errorCode } : {}),
  };
}

function jobsAfter(before: V1Job | null, d: Decision): number {
  let n = before ? 1 : 0;
  for (const a of d.actions) {
    // A create of an existing name is a 409 (success, no new Job).
    if (a.type === "createJob" && n === 0) n = 1;
    if (a.type === "deleteJob") n = 0;
  }
  return n;
}

const cases: Case[] = [
  {
    name: "new resource: creates exactly one Job (and its Secret after it), no Event",
    resource: aPrediction().build(),
    job: null,
    wantStatus: { phase: "Pending", conditions: { Created: "True/JobCreated", Running: "False/JobPending" } },
    wantJobs: 1,
    wantEvents: [],
    wantActions: ["createJob"],
    wantRequeueMs: 300_000,
  },
  {
    name: "Job exists, pod not started yet: nothing to write, requeue at the pending timeout",
    resource: created().build(),
    job: job(created().build()).build(),
    pods: [aPod().build()],
    now: at(100),
    wantStatus: null,
    wantJobs: 1,
    wantEvents: [],
    wantRequeueMs: 200_000,
  },
  {
    name: "crash after Job create, before status write: adopts the Job, makes sure of its Secret",
    resource: aPrediction().build(),
    job: job(aPrediction().build()).build(),
    now: at(5),
    wantStatus: { phase: "Pending", conditions: { Created: "True/JobCreated", Running: "False/JobPending" } },
    wantJobs: 1,
    wantEvents: [],
    wantActions: ["createSecret"],
  },
  {
    name: "pod running: Processing",
    resource: created().build(),
    job: job(created().build()).build(),
    pods: [aPod().running(at(20)).build()],
    now: at(30),
    wantStatus: {
      phase: "Processing",
      conditions: { Created: "True/JobCreated", Running: "True/PodRunning" },
    },
    wantJobs: 1,
    wantEvents: [],
    wantRequeueMs: 60_000,
  },
  {
    name: "runner exited 0, the Job not Complete yet: Completed at once, no requeue for cleanup",
    resource: created().build(),
    job: job(created().build()).build(),
    pods: [aPod().terminated(0, "Completed").build()],
    now: at(30),
    wantStatus: {
      phase: "Completed",
      conditions: { Created: "True/JobCreated", Complete: "True/JobSucceeded" },
    },
    wantJobs: 1,
    wantEvents: ["JobSucceeded"],
    wantActions: [],
    wantRequeueMs: null,
  },
  {
    name: "runner exited 0 before the first status write: Completed, and its Secret made sure of",
    resource: aPrediction().build(),
    job: job(aPrediction().build()).build(),
    pods: [aPod().terminated(0, "Completed").build()],
    now: at(30),
    wantStatus: {
      phase: "Completed",
      conditions: { Created: "True/JobCreated", Complete: "True/JobSucceeded" },
    },
    wantJobs: 1,
    wantEvents: ["JobSucceeded"],
    wantActions: ["createSecret"],
    wantRequeueMs: null,
  },
  {
    name: "success decided (SuccessCriteriaMet, >= 1.31), pods still terminating: Completed, no requeue",
    resource: created().build(),
    job: job(created().build()).condition("SuccessCriteriaMet").build(),
    pods: [aPod().terminated(0, "Completed").build()],
    wantStatus: {
      phase: "Completed",
      conditions: { Created: "True/JobCreated", Complete: "True/JobSucceeded" },
    },
    wantJobs: 1,
    wantEvents: ["JobSucceeded"],
    wantActions: [],
    wantRequeueMs: null,
  },
  {
    name: "Job complete: Completed (the Secret goes with the Job)",
    resource: created().status({ phase: "Processing" }).build(),
    job: job(created().build()).condition("Complete").build(),
    pods: [aPod().terminated(0, "Completed").build()],
    wantStatus: {
      phase: "Completed",
      conditions: { Created: "True/JobCreated", Complete: "True/JobSucceeded" },
    },
    wantJobs: 1,
    wantEvents: ["JobSucceeded"],
    wantActions: [],
    wantRequeueMs: null,
  },
  {
    name: "runner exit 3 (reported failure): Failed without an operator error code",
    resource: created().build(),
    job: job(created().build()).build(),
    pods: [aPod().terminated(3, "Error", "target_not_reachable").build()],
    wantStatus: { phase: "Failed", conditions: { Created: "True/JobCreated", Failed: "True/RunnerFailed" } },
    wantJobs: 1,
    wantEvents: ["RunnerFailed"],
    wantActions: [],
    wantRequeueMs: 30_000,
  },
  {
    name: "deadline exceeded: deadline_exceeded",
    resource: created().build(),
    job: job(created().build())
      .condition("Failed", "DeadlineExceeded", "Job was active longer than specified deadline")
      .build(),
    wantStatus: {
      phase: "Failed",
      conditions: { Created: "True/JobCreated", Failed: "True/DeadlineExceeded" },
      errorCode: "deadline_exceeded",
    },
    wantJobs: 1,
    wantEvents: ["DeadlineExceeded"],
  },
  {
    name: "deadline seen early through FailureTarget (>= 1.31), pods still terminating",
    resource: created().status({ phase: "Processing" }).build(),
    job: job(created().build()).condition("FailureTarget", "DeadlineExceeded").build(),
    now: at(400),
    wantStatus: {
      phase: "Failed",
      conditions: { Created: "True/JobCreated", Failed: "True/DeadlineExceeded" },
      errorCode: "deadline_exceeded",
    },
    wantJobs: 1,
    wantEvents: ["DeadlineExceeded"],
  },
  {
    name: "between attempts (a pod failed, no replacement yet): not a pending timeout",
    resource: created().status({ phase: "Processing" }).build(),
    job: (() => {
      const j = job(created().build()).build();
      j.status = { failed: 1 };
      return j;
    })(),
    now: at(1000),
    wantStatus: {
      phase: "Processing",
      conditions: { Created: "True/JobCreated", Running: "True/PodRunning" },
    },
    wantJobs: 1,
    wantEvents: [],
  },
  {
    name: "OOM kill exhausts retries: out_of_memory",
    resource: created().build(),
    job: job(created().build()).condition("Failed", "BackoffLimitExceeded").build(),
    pods: [aPod().terminated(137, "OOMKilled").build()],
    wantStatus: {
      phase: "Failed",
      conditions: { Created: "True/JobCreated", Failed: "True/OOMKilled" },
      errorCode: "out_of_memory",
    },
    wantJobs: 1,
    wantEvents: ["OOMKilled"],
    // The API learns it through the signed callback, not from its stuck-job sweeper.
    wantActions: ["reportFailure"],
  },
  {
    name: "crash exhausts retries: internal_error",
    resource: created().build(),
    job: job(created().build()).condition("Failed", "BackoffLimitExceeded").build(),
    pods: [aPod().terminated(1, "Error").build()],
    wantStatus: {
      phase: "Failed",
      conditions: { Created: "True/JobCreated", Failed: "True/RunnerCrashed" },
      errorCode: "internal_error",
    },
    wantJobs: 1,
    wantEvents: ["RunnerCrashed"],
  },
  {
    name: "eviction exhausts retries: PodEvicted",
    resource: created().build(),
    job: job(created().build()).condition("Failed", "BackoffLimitExceeded").build(),
    pods: [aPod().evicted("The node was low on resource: memory.").build()],
    wantStatus: {
      phase: "Failed",
      conditions: { Created: "True/JobCreated", Failed: "True/PodEvicted" },
      errorCode: "internal_error",
    },
    wantJobs: 1,
    wantEvents: ["PodEvicted"],
  },
  {
    name: "image pull backoff before the timeout: still Pending",
    resource: created().build(),
    job: job(created().build()).build(),
    pods: [aPod().waiting("ImagePullBackOff", "Back-off pulling image").build()],
    now: at(60),
    wantStatus: null,
    wantJobs: 1,
    wantEvents: [],
  },
  {
    name: "image pull backoff past the timeout: ImagePullFailed, then the active Job is stopped",
    resource: created().build(),
    job: job(created().build()).build(),
    pods: [aPod().waiting("ImagePullBackOff", "Back-off pulling image").build()],
    now: at(301),
    wantStatus: {
      phase: "Failed",
      conditions: { Created: "True/JobCreated", Failed: "True/ImagePullFailed" },
      errorCode: "job_stalled",
    },
    wantJobs: 1,
    wantEvents: ["ImagePullFailed"],
    wantRequeueMs: 30_000,
  },
  {
    name: "invalid image name fails at once",
    resource: created().build(),
    job: job(created().build()).build(),
    pods: [aPod().waiting("InvalidImageName", "bad ref").build()],
    now: at(10),
    wantStatus: {
      phase: "Failed",
      conditions: { Created: "True/JobCreated", Failed: "True/ImagePullFailed" },
      errorCode: "job_stalled",
    },
    wantJobs: 1,
    wantEvents: ["ImagePullFailed"],
  },
  {
    name: "unschedulable past the timeout: PodUnschedulable",
    resource: created().build(),
    job: job(created().build()).build(),
    pods: [aPod().unschedulable("0/3 nodes are available: 3 Insufficient memory.").build()],
    now: at(400),
    wantStatus: {
      phase: "Failed",
      conditions: { Created: "True/JobCreated", Failed: "True/PodUnschedulable" },
      errorCode: "job_stalled",
    },
    wantJobs: 1,
    wantEvents: ["PodUnschedulable"],
  },
  {
    name: "no pod at all past the timeout: PodPendingTimeout",
    resource: created().build(),
    job: job(created().build()).build(),
    now: at(300),
    wantStatus: {
      phase: "Failed",
      conditions: { Created: "True/JobCreated", Failed: "True/PodPendingTimeout" },
      errorCode: "job_stalled",
    },
    wantJobs: 1,
    wantEvents: ["PodPendingTimeout"],
  },
  {
    name: "runner reported completion (mirrored by the API): Completed",
    resource: created()
      .reported({ status: "completed", progressPct: 100, processingStep: "results_uploaded" })
      .build(),
    job: job(created().build()).build(),
    pods: [aPod().running().build()],
    wantStatus: {
      phase: "Completed",
      conditions: { Created: "True/JobCreated", Complete: "True/RunnerReportedCompletion" },
    },
    wantJobs: 1,
    wantEvents: ["RunnerReportedCompletion"],
    wantRequeueMs: 30_000,
  },
  {
    name: "runner reported failure: Failed, the code stays the API's",
    resource: created()
      .reported({ status: "failed", errorCode: "no_degs_detected", errorMessage: "No DEGs" })
      .build(),
    job: job(created().build()).build(),
    wantStatus: {
      phase: "Failed",
      conditions: { Created: "True/JobCreated", Failed: "True/RunnerReportedFailure" },
    },
    wantJobs: 1,
    wantEvents: ["RunnerReportedFailure"],
  },
  {
    name: "terminal, Job still active within the grace: wait",
    resource: created().status({ phase: "Failed", completionTime: T0.toISOString() }).build(),
    job: job(created().build()).build(),
    now: at(10),
    wantStatus: null,
    wantJobs: 1,
    wantEvents: [],
    wantRequeueMs: 20_000,
  },
  {
    name: "terminal, Job still active after the grace: delete it",
    resource: created().status({ phase: "Failed", completionTime: T0.toISOString() }).build(),
    job: job(created().build()).build(),
    now: at(31),
    wantStatus: null,
    wantJobs: 0,
    wantEvents: ["JobDeleted"],
    wantActions: ["deleteJob"],
  },
  {
    name: "terminal, Job not finished yet but its runner succeeded: nothing to stop",
    resource: created().status({ phase: "Completed", completionTime: T0.toISOString() }).build(),
    job: job(created().build()).build(),
    pods: [aPod().terminated(0, "Completed").build()],
    now: at(31),
    wantStatus: null,
    wantJobs: 1,
    wantEvents: [],
    wantActions: [],
    wantRequeueMs: null,
  },
  {
    name: "terminal and finished: nothing to do (TTL is the Job's own)",
    resource: created().status({ phase: "Completed", completionTime: T0.toISOString() }).build(),
    job: job(created().build()).condition("Complete").build(),
    now: at(1000),
    wantStatus: null,
    wantJobs: 1,
    wantEvents: [],
    wantRequeueMs: null,
  },
  {
    name: "Job vanished before finishing: JobMissing once the grace is over",
    resource: created().build(),
    job: null,
    now: at(50),
    jobMissingSince: at(40),
    wantStatus: {
      phase: "Failed",
      conditions: { Created: "True/JobCreated", Failed: "True/JobMissing" },
      errorCode: "internal_error",
    },
    wantJobs: 0,
    wantEvents: ["JobMissing"],
  },
  {
    name: "a same-named Job of an earlier resource: wait for its garbage collection",
    resource: aPrediction().build(),
    job: job(aPrediction().build()).ownedBy("old-uid").build(),
    wantStatus: null,
    wantJobs: 1,
    wantEvents: ["JobConflict"],
    wantActions: [],
    wantRequeueMs: 5_000,
  },
  {
    name: "target_validation without a target: InvalidSpec, no Job",
    resource: aPrediction({ job_type: "target_validation" }).build(),
    job: null,
    wantStatus: { phase: "Failed", conditions: { Failed: "True/InvalidSpec" }, errorCode: "internal_error" },
    wantJobs: 0,
    wantEvents: ["InvalidSpec"],
    wantActions: ["reportFailure"],
  },
  {
    name: "the apiserver refused the Job create for good (422): Failed as JobRejected, reported as internal_error",
    resource: aPrediction().build(),
    job: null,
    jobRejected: { status: 422, message: WEBHOOK_MESSAGE },
    wantStatus: { phase: "Failed", conditions: { Failed: "True/JobRejected" }, errorCode: "internal_error" },
    wantJobs: 0,
    wantEvents: ["JobRejected"],
    wantActions: ["reportFailure"],
    wantRequeueMs: null,
  },
  {
    name: "a refused Job create (403, a ValidatingAdmissionPolicy): no second create, no Secret",
    resource: aPrediction().build(),
    job: null,
    jobRejected: { status: 403, message: "jobs.batch is forbidden: ValidatingAdmissionPolicy denied" },
    wantStatus: { phase: "Failed", conditions: { Failed: "True/JobRejected" }, errorCode: "internal_error" },
    wantJobs: 0,
    wantEvents: ["JobRejected"],
    wantActions: ["reportFailure"],
  },
  {
    name: "resource TTL: the finishing pass requeues at the TTL (its own status write runs no pass)",
    resource: created().status({ phase: "Processing" }).build(),
    job: job(created().build()).condition("Complete").build(),
    pods: [aPod().terminated(0, "Completed").build()],
    now: at(100),
    config: { resourceTtlSecondsAfterFinished: HOUR },
    wantStatus: {
      phase: "Completed",
      conditions: { Created: "True/JobCreated", Complete: "True/JobSucceeded" },
    },
    wantJobs: 1,
    wantEvents: ["JobSucceeded"],
    wantActions: [],
    wantRequeueMs: HOUR * 1000,
  },
  {
    name: "resource TTL, terminal and not yet expired: requeue at the expiry, nothing else",
    resource: completedAt(at(100)),
    job: job(created().build()).condition("Complete").build(),
    now: at(100 + HOUR - 60),
    config: { resourceTtlSecondsAfterFinished: HOUR },
    wantStatus: null,
    wantJobs: 1,
    wantEvents: [],
    wantActions: [],
    wantRequeueMs: 60_000,
  },
  {
    name: "resource TTL expired: delete the resource, preconditioned on its uid and resourceVersion",
    resource: completedAt(at(100)),
    job: null,
    now: at(100 + HOUR),
    config: { resourceTtlSecondsAfterFinished: HOUR },
    wantStatus: null,
    wantJobs: 0,
    wantEvents: [],
    wantActions: ["deleteResource"],
    wantRequeueMs: null,
  },
  {
    name: "resource TTL counts from the Failed condition's transition, not from creation",
    resource: stored(
      created()
        .status({
          phase: "Failed",
          completionTime: at(2 * HOUR).toISOString(),
          conditions: [
            {
              type: "Failed",
              status: "True",
              reason: "OOMKilled",
              message: "",
              lastTransitionTime: at(2 * HOUR).toISOString(),
            },
          ],
        })
        .build(),
    ),
    job: null,
    now: at(2 * HOUR + 10),
    config: { resourceTtlSecondsAfterFinished: HOUR },
    wantStatus: null,
    wantJobs: 0,
    wantEvents: [],
    wantActions: [],
    wantRequeueMs: HOUR * 1000 - 10_000,
  },
  {
    name: "resource TTL, terminal with a Job that still runs: the earlier clock (terminal grace) first",
    resource: stored(created().status({ phase: "Failed", completionTime: T0.toISOString() }).build()),
    job: job(created().build()).build(),
    now: at(10),
    config: { resourceTtlSecondsAfterFinished: HOUR },
    wantStatus: null,
    wantJobs: 1,
    wantEvents: [],
    wantRequeueMs: 20_000,
  },
  {
    name: "resource TTL of weeks: a requeue waits at most a day (a longer timer would overflow)",
    resource: completedAt(T0),
    job: null,
    now: at(10),
    config: { resourceTtlSecondsAfterFinished: 30 * 24 * HOUR },
    wantStatus: null,
    wantJobs: 0,
    wantEvents: [],
    wantActions: [],
    wantRequeueMs: 24 * HOUR * 1000,
  },
  {
    name: "resource TTL unset (the default): a finished resource is kept forever, no requeue",
    resource: completedAt(T0),
    job: null,
    now: at(365 * 24 * HOUR),
    wantStatus: null,
    wantJobs: 0,
    wantEvents: [],
    wantActions: [],
    wantRequeueMs: null,
  },
];

describe("reconcilePrediction", () => {
  it.each(cases)("$name", (c) => {
    const d = reconcilePrediction(
      {
        resource: c.resource,
        job: c.job,
        pods: c.pods ?? [],
        now: c.now ?? T0,
        jobMissingSince: c.jobMissingSince ?? null,
        jobRejected: c.jobRejected ?? null,
      },
      c.config ? testConfig(c.config) : config,
    );
    expect(summary(d)).toEqual(c.wantStatus);
    expect(jobsAfter(c.job, d)).toBe(c.wantJobs);
    expect(d.events.map((e) => e.reason)).toEqual(c.wantEvents);
    if (c.wantActions) expect(d.actions.map((a) => a.type)).toEqual(c.wantActions);
    if (c.wantRequeueMs !== undefined) expect(d.requeueAfterMs).toBe(c.wantRequeueMs);
  });

  it("is idempotent: a second pass over its own status writes nothing", () => {
    const resource = created().build();
    const j = job(resource).build();
    const pods = [aPod().running(at(20)).build()];
    const first = reconcilePrediction({ resource, job: j, pods, now: at(30) }, config);
    expect(first.status).not.toBeNull();
    resource.status = { ...resource.status, ...first.status };
    const second = reconcilePrediction({ resource, job: j, pods, now: at(90) }, config);
    expect(second.status).toBeNull();
    expect(second.events).toEqual([]);
  });

  it("keeps lastTransitionTime of unchanged conditions", () => {
    const resource = created().build();
    const d = reconcilePrediction(
      { resource, job: job(resource).build(), pods: [aPod().running().build()], now: at(30) },
      config,
    );
    const createdCond = d.status?.conditions?.find((c) => c.type === "Created");
    const running = d.status?.conditions?.find((c) => c.type === "Running");
    expect(createdCond?.lastTransitionTime).toBe(T0.toISOString());
    expect(running?.lastTransitionTime).toBe(at(30).toISOString());
  });

  it("never mutates the observed resource", () => {
    const resource = created().build();
    const before = structuredClone(resource);
    reconcilePrediction(
      { resource, job: job(resource).build(), pods: [aPod().running().build()], now: at(30) },
      config,
    );
    expect(resource).toEqual(before);
  });

  it("a refused Job: the condition, the Event and the report quote the apiserver's message, clipped", () => {
    const long = `${WEBHOOK_MESSAGE} ${"x".repeat(5000)}`;
    const d = reconcilePrediction(
      {
        resource: aPrediction().build(),
        job: null,
        pods: [],
        now: T0,
        jobRejected: { status: 422, message: long },
      },
      config,
    );
    const failed = d.status?.conditions?.find((c) => c.type === "Failed");
    expect(failed?.message).toContain(`Job ${JOB} (HTTP 422): ${WEBHOOK_MESSAGE}`);
    expect(failed?.message.length).toBeLessThan(700);
    expect(d.events).toEqual([{ type: "Warning", reason: "JobRejected", note: failed?.message }]);
    expect(d.actions).toEqual([
      { type: "reportFailure", errorCode: "internal_error", message: failed?.message },
    ]);
    expect(d.finished).toEqual({ outcome: "failed", reason: "JobRejected" });
  });

  it("an expired resource is deleted only as the copy observed: its uid and resourceVersion", () => {
    const resource = completedAt(T0);
    const d = reconcilePrediction(
      { resource, job: null, pods: [], now: at(HOUR) },
      testConfig({ resourceTtlSecondsAfterFinished: HOUR }),
    );
    expect(d.actions).toEqual([{ type: "deleteResource", uid: "uid-1", resourceVersion: "42" }]);
  });

  it("a retry pod waiting to start keeps the job Processing", () => {
    const resource = created().status({ phase: "Processing" }).build();
    const pods = [aPod("p1", T0).terminated(1).build(), aPod("p2", at(60)).build()];
    const d = reconcilePrediction({ resource, job: job(resource).build(), pods, now: at(70) }, config);
    expect(d.status?.phase ?? "Processing").toBe("Processing");
    expect(d.requeueAfterMs).toBe(290_000);
  });
});
