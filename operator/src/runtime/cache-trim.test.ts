import { describe, expect, it } from "vitest";
import { aJob, aPod, aPrediction, testConfig, T0 } from "../../../test/builders/prediction.ts";
import { jobOutcome } from "../reconcile/outcome.ts";
import { trimJob, trimMeta, trimPod } from "./cache-trim.ts";

const managed = [{ manager: "kube-controller-manager", operation: "Update" as const }];

describe("cache trimming", () => {
  it("drops managedFields and keeps the rest of the metadata", () => {
    const resource = aPrediction().build();
    resource.metadata.managedFields = managed;
    trimMeta(resource);
    expect(resource.metadata.managedFields).toBeUndefined();
    expect(resource.metadata.uid).toBe("uid-1");
  });

  it("a Job keeps its metadata, deadline and status, not its pod template", () => {
    const job = aJob(aPrediction().build()).condition("Failed", "DeadlineExceeded").build();
    job.metadata = { ...job.metadata, managedFields: managed };
    const pods = [aPod().terminated(1).build()];
    const before = jobOutcome(structuredClone(job), pods, T0, testConfig());
    trimJob(job);
    expect(job.spec?.template).toEqual({});
    expect(job.metadata?.managedFields).toBeUndefined();
    expect(job.metadata?.ownerReferences).toHaveLength(1);
    // The decisions see the same Job.
    expect(jobOutcome(job, pods, T0, testConfig())).toEqual(before);
  });

  it("a pod keeps its status and its containers' resources (the OOM message names the limit)", () => {
    const pod = aPod().terminated(137, "OOMKilled").build();
    const job = aJob(aPrediction().build()).condition("Failed", "BackoffLimitExceeded").build();
    const before = jobOutcome(job, [structuredClone(pod)], T0, testConfig());
    trimPod(pod);
    expect(pod.spec).toEqual({ containers: [{ name: "runner", resources: { limits: { memory: "4Gi" } } }] });
    expect(jobOutcome(job, [pod], T0, testConfig())).toEqual(before);
    expect(before.message).toContain("4Gi");
  });
});
