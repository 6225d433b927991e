import { describe, expect, it } from "vitest";
import { aJob, aPod, aPrediction, T0 } from "../../../test/builders/prediction.ts";
import { isFreshPod, jobView, podView } from "./decision-view.ts";

describe("decision views", () => {
  const job = aJob(aPrediction().build()).build();

  it("a Job's view ignores bookkeeping and follows its outcome", () => {
    const ready = structuredClone(job);
    ready.status = { ...ready.status, active: 1, ready: 1, uncountedTerminatedPods: {} };
    ready.metadata = { ...ready.metadata, resourceVersion: "42" };
    expect(jobView(ready)).toBe(jobView(job));
    const failed = structuredClone(job);
    failed.status = { ...failed.status, failed: 1 };
    expect(jobView(failed)).not.toBe(jobView(job));
    expect(jobView(aJob(aPrediction().build()).condition("Complete").build())).not.toBe(jobView(job));
  });

  it("a pod's view follows its phase and the runner's state, not its finalizers", () => {
    const pending = aPod().build();
    const tracked = structuredClone(pending);
    tracked.metadata = { ...tracked.metadata, finalizers: ["batch.kubernetes.io/job-tracking"] };
    expect(podView(tracked)).toBe(podView(pending));
    const running = aPod().running(T0).build();
    expect(podView(running)).not.toBe(podView(pending));
    expect(podView(aPod().terminated(0, "Completed").build())).not.toBe(podView(running));
    const deleting = structuredClone(running);
    deleting.metadata = { ...deleting.metadata, deletionTimestamp: T0 };
    expect(podView(deleting)).not.toBe(podView(running));
  });

  it("a fresh pod is one nothing has happened to yet", () => {
    expect(isFreshPod(aPod().build())).toBe(true);
    expect(isFreshPod(aPod().waiting("ContainerCreating", "").build())).toBe(true);
    expect(isFreshPod(aPod().running(T0).build())).toBe(false);
    expect(isFreshPod(aPod().waiting("ErrImagePull", "pull failed").build())).toBe(false);
    expect(isFreshPod(aPod().unschedulable("0/1 nodes").build())).toBe(false);
  });
});
