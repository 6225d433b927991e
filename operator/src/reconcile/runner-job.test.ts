import { describe, expect, it } from "vitest";
import type { V1Pod } from "@kubernetes/client-node";
import type { PredictionResource } from "@causeway/contract";
import { aJob, aPod, aPrediction, at, observed, testConfig } from "../../../test/builders/prediction.ts";
import { reconcileRunnerJob } from "./runner-job.ts";
import type { Decision, Observed } from "./types.ts";

const config = testConfig();
const created = () => aPrediction().created();
const ours = created().build();
const finishedJob = aJob(ours).condition("Complete").build();

interface Case {
  name: string;
  observed: Observed<PredictionResource>;
  /** `phase/reason of its last condition`, or null for "no status write". */
  wantStatus: string | null;
  wantActions: string[];
  wantRequeueMs: number | null;
  /** What the runtime is asked to hand back to the next pass. */
  wantMissingSince?: Date;
  wantFinished?: Decision["finished"];
}

function status(d: Decision): string | null {
  if (!d.status) return null;
  return `${d.status.phase}/${d.status.conditions?.at(-1)?.reason ?? ""}`;
}

const running: V1Pod[] = [aPod().running(at(5)).build()];

// Kept out of the runtime: whether a missing Job is waited for and whether a deleted Job's final
// state stands in for it. The runtime only carries `jobMissingSince` and the tombstones across passes.
const cases: Case[] = [
  {
    name: "a created Job is missing for the first time: wait, write nothing, remember since when",
    observed: observed(ours, { now: at(50) }),
    wantStatus: null,
    wantActions: [],
    wantRequeueMs: 1_000,
    wantMissingSince: at(50),
  },
  {
    name: "still missing within the grace: keep waiting from the first time it was seen missing",
    observed: observed(ours, { now: at(55), jobMissingSince: at(50) }),
    wantStatus: null,
    wantActions: [],
    wantRequeueMs: 1_000,
    wantMissingSince: at(50),
  },
  {
    name: "missing past the grace (10 s): JobMissing, reported to the API",
    observed: observed(ours, { now: at(60), jobMissingSince: at(50) }),
    wantStatus: "Failed/JobMissing",
    wantActions: ["reportFailure"],
    wantRequeueMs: null,
    wantFinished: { outcome: "failed", reason: "JobMissing" },
  },
  {
    name: "a finished Job deleted by its TTL before a pass read it: the outcome comes from its final state",
    observed: observed(ours, { now: at(50), deletedJob: finishedJob }),
    wantStatus: "Completed/JobSucceeded",
    wantActions: [],
    wantRequeueMs: null,
    wantFinished: { outcome: "completed", reason: "JobSucceeded" },
  },
  {
    name: "a deleted Job that failed on its deadline: deadline_exceeded from its final state",
    observed: observed(ours, {
      now: at(50),
      deletedJob: aJob(ours).condition("Failed", "DeadlineExceeded").build(),
    }),
    wantStatus: "Failed/DeadlineExceeded",
    wantActions: ["reportFailure"],
    wantRequeueMs: null,
    wantFinished: { outcome: "failed", reason: "DeadlineExceeded" },
  },
  {
    name: "a deleted Job that had not finished tells nothing: the Job is missing",
    observed: observed(ours, { now: at(50), deletedJob: aJob(ours).build() }),
    wantStatus: null,
    wantActions: [],
    wantRequeueMs: 1_000,
    wantMissingSince: at(50),
  },
  {
    name: "a deleted Job of an earlier resource with the same name is not this resource's outcome",
    observed: observed(ours, {
      now: at(50),
      deletedJob: aJob(ours).ownedBy("old-uid").condition("Complete").build(),
    }),
    wantStatus: null,
    wantActions: [],
    wantRequeueMs: 1_000,
    wantMissingSince: at(50),
  },
  {
    name: "a live Job wins over a remembered deleted one",
    observed: observed(ours, {
      now: at(10),
      job: aJob(ours).build(),
      deletedJob: finishedJob,
      pods: running,
    }),
    wantStatus: "Processing/PodRunning",
    wantActions: [],
    wantRequeueMs: 60_000,
  },
  {
    name: "the Job is back within the grace: the wait is over",
    observed: observed(ours, { now: at(10), job: aJob(ours).build(), jobMissingSince: at(5), pods: running }),
    wantStatus: "Processing/PodRunning",
    wantActions: [],
    wantRequeueMs: 60_000,
  },
  {
    name: "a reported completion with the Job missing still waits out the grace for its final state",
    observed: observed(
      created()
        .reported({
          status: "completed",
          processingStep: null,
          progressPct: 100,
          errorCode: null,
          errorMessage: null,
        })
        .build(),
      { now: at(50) },
    ),
    wantStatus: null,
    wantActions: [],
    wantRequeueMs: 1_000,
    wantMissingSince: at(50),
  },
  {
    name: "a terminal resource whose Job is gone: nothing to wait for",
    observed: observed(
      created()
        .status({ phase: "Completed", completionTime: at(1).toISOString() })
        .build(),
      {
        now: at(50),
      },
    ),
    wantStatus: null,
    wantActions: [],
    wantRequeueMs: null,
  },
  {
    name: "a resource whose Job was never created: create it, no wait",
    observed: observed(aPrediction().build(), { now: at(50) }),
    wantStatus: "Pending/JobPending",
    wantActions: ["createJob"],
    wantRequeueMs: 300_000,
  },
];

describe("reconcileRunnerJob: missing and deleted Jobs", () => {
  it.each(cases)("$name", (c) => {
    const d = reconcileRunnerJob(c.observed, config, null);
    expect(status(d)).toBe(c.wantStatus);
    expect(d.actions.map((a) => a.type)).toEqual(c.wantActions);
    expect(d.requeueAfterMs).toBe(c.wantRequeueMs);
    expect(d.jobMissingSince).toEqual(c.wantMissingSince);
    expect(d.finished).toEqual(c.wantFinished);
  });

  it("reports a finished transition once: a pass over the terminal status reports none", () => {
    const first = reconcileRunnerJob(observed(ours, { now: at(50), deletedJob: finishedJob }), config, null);
    expect(first.finished).toEqual({ outcome: "completed", reason: "JobSucceeded" });
    const resource = { ...ours, status: { ...ours.status, ...first.status } };
    const second = reconcileRunnerJob(
      observed(resource, { now: at(51), deletedJob: finishedJob }),
      config,
      null,
    );
    expect(second.status).toBeNull();
    expect(second.finished).toBeUndefined();
  });
});
