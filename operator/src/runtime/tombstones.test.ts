import { describe, expect, it } from "vitest";
import type { V1Job } from "@kubernetes/client-node";
import { aJob, aPrediction, T0 } from "../../../test/builders/prediction.ts";
import { FakeClock } from "./clock.ts";
import { jobView } from "./decision-view.ts";
import { TOMBSTONE_MAX, TOMBSTONE_TTL_MS, Tombstones, tombstoneOf } from "./tombstones.ts";

const namedJob = (name: string): V1Job => ({ metadata: { name, namespace: "causeway" } });

describe("tombstoneOf", () => {
  it("keeps everything the decisions read of a Job and drops its pod template and bookkeeping", () => {
    const job = aJob(aPrediction().build()).condition("Complete").build();
    job.metadata = { ...job.metadata, managedFields: [{ manager: "kube-controller-manager" }] };
    const kept = tombstoneOf(job);
    expect(jobView(kept)).toBe(jobView(job));
    expect(kept.metadata?.managedFields).toBeUndefined();
    expect(kept.spec?.template).toEqual({});
    expect(kept.status).toEqual(job.status);
  });
});

describe("Tombstones", () => {
  it("gives back a deleted Job's final state by namespace and name", () => {
    const tombstones = new Tombstones(new FakeClock(T0.getTime()));
    const job = aJob(aPrediction().build()).condition("Complete").build();
    tombstones.remember(job);
    expect(tombstones.get(job.metadata?.namespace ?? "", job.metadata?.name ?? "")).toEqual(tombstoneOf(job));
    expect(tombstones.get("other", job.metadata?.name ?? "")).toBeNull();
  });

  it.each([
    { name: "a fresh tombstone stays", ageMs: TOMBSTONE_TTL_MS - 1, kept: true },
    { name: "an expired one goes when the next Job is remembered", ageMs: TOMBSTONE_TTL_MS, kept: false },
  ])("$name", ({ ageMs, kept }) => {
    const clock = new FakeClock(T0.getTime());
    const tombstones = new Tombstones(clock);
    tombstones.remember(namedJob("old"));
    clock.advance(ageMs);
    tombstones.remember(namedJob("new"));
    expect(tombstones.get("causeway", "old") !== null).toBe(kept);
    expect(tombstones.get("causeway", "new")).not.toBeNull();
  });

  it("holds at most its maximum, dropping the oldest first", () => {
    const tombstones = new Tombstones(new FakeClock(T0.getTime()), TOMBSTONE_TTL_MS, 3);
    for (const name of ["a", "b", "c", "d"]) tombstones.remember(namedJob(name));
    expect(tombstones.size).toBe(3);
    expect(["a", "b", "c", "d"].filter((n) => tombstones.get("causeway", n) !== null)).toEqual([
      "b",
      "c",
      "d",
    ]);
  });

  it("is bounded by TOMBSTONE_MAX by default", () => {
    const tombstones = new Tombstones(new FakeClock(T0.getTime()));
    for (let i = 0; i <= TOMBSTONE_MAX; i++) tombstones.remember(namedJob(`job-${i}`));
    expect(tombstones.size).toBe(TOMBSTONE_MAX);
    expect(tombstones.get("causeway", "job-0")).toBeNull();
  });
});
