import { describe, expect, it } from "vitest";
import type { KubernetesObject, V1Job } from "@kubernetes/client-node";
import { LABELS, RESOURCES, type CausewayResource } from "@causeway/contract";
import { aJob, aPod, aPrediction, JOB_ID, T0 } from "../../../test/builders/prediction.ts";
import { Expectations } from "./expectations.ts";
import type { InformerEvent } from "./informer.ts";
import {
  echoRunsPass,
  mattersWhenTerminal,
  ownerOf,
  WatchPredicates,
  type OwnedOutcome,
  type OwnedSource,
  type ResourceRef,
} from "./predicates.ts";

const KEY = `prediction/causeway/${JOB_ID}`;
const OWNER: ResourceRef = { kind: "prediction", namespace: "causeway", name: JOB_ID };

/** A resource at resourceVersion `version`, in `phase`. */
function resourceAt(version: string, phase?: "Pending" | "Completed"): CausewayResource {
  const r = aPrediction().build();
  r.metadata.resourceVersion = version;
  if (phase) r.status = { ...r.status, phase };
  return r;
}

/** A runner pod with the labels the operator's Jobs give their pods. */
function labelled<T extends KubernetesObject>(obj: T): T {
  obj.metadata = {
    ...obj.metadata,
    namespace: "causeway",
    labels: { [LABELS.kind]: RESOURCES.prediction.singular, [LABELS.resource]: JOB_ID },
  };
  return obj;
}

const runningJob = (): V1Job => ({ ...aJob(aPrediction().build()).build(), status: { active: 1 } });
const finishedJob = (): V1Job => aJob(aPrediction().build()).condition("Complete").build();
const deletingJob = (): V1Job => {
  const job = runningJob();
  job.metadata = { ...job.metadata, deletionTimestamp: T0 };
  return job;
};

function setup(cached: CausewayResource | undefined) {
  const statusWrites = new Expectations();
  const jobCreates = new Expectations();
  const predicates = new WatchPredicates({ statusWrites, jobCreates, resource: () => cached });
  return { statusWrites, jobCreates, predicates };
}

describe("ownerOf", () => {
  it("names the resource from a Job's or pod's labels, and nothing for a stranger", () => {
    expect(ownerOf(labelled(aPod().build()))).toEqual(OWNER);
    expect(ownerOf(aJob(aPrediction().build()).build())).toEqual(OWNER);
    expect(ownerOf({ metadata: { namespace: "causeway", labels: { [LABELS.resource]: JOB_ID } } })).toBe(
      undefined,
    );
    expect(ownerOf({ metadata: { namespace: "causeway", labels: { [LABELS.kind]: "deployment" } } })).toBe(
      undefined,
    );
  });
});

describe("mattersWhenTerminal and echoRunsPass", () => {
  it.each<[string, OwnedSource, KubernetesObject, InformerEvent, boolean]>([
    ["a Job that runs", "job", runningJob(), "update", true],
    ["a finished Job", "job", finishedJob(), "update", false],
    ["a Job being deleted", "job", deletingJob(), "update", false],
    ["a deleted Job", "job", runningJob(), "delete", false],
    ["a running pod", "pod", aPod().running(T0).build(), "update", false],
  ])("%s matters to a terminal resource: %s", (_name, source, obj, type, want) => {
    expect(mattersWhenTerminal(source, obj, type)).toBe(want);
  });

  it.each([
    { deferred: undefined, phase: "Pending" as const, want: false },
    { deferred: "always" as const, phase: "Completed" as const, want: true },
    { deferred: "unlessTerminal" as const, phase: "Pending" as const, want: true },
    { deferred: "unlessTerminal" as const, phase: "Completed" as const, want: false },
  ])(
    "an echo with deferred work $deferred on a $phase resource runs a pass: $want",
    ({ deferred, phase, want }) => {
      expect(echoRunsPass(deferred, resourceAt("5", phase))).toBe(want);
    },
  );
});

describe("WatchPredicates.resourceEvent", () => {
  it("queues news at once, holds events during an own write, drops its echo", () => {
    const { statusWrites, predicates } = setup(undefined);
    expect(predicates.resourceEvent(KEY, resourceAt("3"), "add")).toBe("queued");
    statusWrites.begin(KEY);
    expect(predicates.resourceEvent(KEY, resourceAt("4"), "update")).toBe("held");
    statusWrites.settleUpdate(KEY, "5", "3");
    expect(predicates.resourceEvent(KEY, resourceAt("5"), "update")).toBe("own_write");
    expect(predicates.resourceEvent(KEY, resourceAt("6"), "update")).toBe("queued");
  });

  it.each([
    { deferred: "always" as const, phase: "Completed" as const, want: "queued" },
    { deferred: "unlessTerminal" as const, phase: "Completed" as const, want: "own_write" },
    { deferred: "unlessTerminal" as const, phase: "Pending" as const, want: "queued" },
  ])(
    "the echo with $deferred work deferred to it on a $phase resource: $want",
    ({ deferred, phase, want }) => {
      const { statusWrites, predicates } = setup(undefined);
      statusWrites.settleUpdate(KEY, "5", "4");
      statusWrites.defer(KEY, deferred);
      expect(predicates.resourceEvent(KEY, resourceAt("5", phase), "update")).toBe(want);
    },
  );

  it("an add or delete at the expected version is not the echo of an update", () => {
    const { statusWrites, predicates } = setup(undefined);
    statusWrites.settleUpdate(KEY, "5", "4");
    expect(predicates.resourceEvent(KEY, resourceAt("5"), "delete")).toBe("queued");
  });
});

describe("WatchPredicates.ownedEvent", () => {
  /** Events in order, against a cached resource, and the outcomes they must have. */
  const cases: {
    name: string;
    cached: CausewayResource | undefined;
    events: [OwnedSource, KubernetesObject, InformerEvent][];
    want: OwnedOutcome[];
  }[] = [
    {
      name: "a Job update that leaves its view unchanged runs nothing; a change does",
      cached: resourceAt("3", "Pending"),
      events: [
        ["job", runningJob(), "add"],
        ["job", { ...runningJob(), status: { active: 1, ready: 1 } }, "update"],
        ["job", finishedJob(), "update"],
      ],
      want: ["queued", "unchanged", "queued"],
    },
    {
      name: "a fresh pod runs nothing; its start does; a deleted pod's view is forgotten",
      cached: resourceAt("3", "Pending"),
      events: [
        ["pod", labelled(aPod().build()), "add"],
        ["pod", labelled(aPod().running(T0).build()), "update"],
        ["pod", labelled(aPod().running(T0).build()), "delete"],
        ["pod", labelled(aPod().running(T0).build()), "update"],
      ],
      want: ["unchanged", "queued", "queued", "queued"],
    },
    {
      name: "for a terminal resource only a Job that runs on matters",
      cached: resourceAt("3", "Completed"),
      events: [
        ["pod", labelled(aPod().terminated(0, "Completed").build()), "update"],
        ["job", finishedJob(), "update"],
        ["job", deletingJob(), "update"],
        ["job", finishedJob(), "delete"],
        ["job", runningJob(), "update"],
      ],
      want: ["terminal", "terminal", "terminal", "terminal", "queued"],
    },
    {
      name: "with no cached resource every change runs a pass",
      cached: undefined,
      events: [["job", finishedJob(), "update"]],
      want: ["queued"],
    },
  ];

  it.each(cases)("$name", ({ cached, events, want }) => {
    const { predicates } = setup(cached);
    const got = events.map(([source, obj, type]) => predicates.ownedEvent(source, OWNER, KEY, obj, type));
    expect(got).toEqual(want);
  });

  it("the add event of an own Job create is held during the create and dropped after it", () => {
    const { jobCreates, predicates } = setup(resourceAt("3", "Pending"));
    const job = { ...runningJob(), metadata: { ...runningJob().metadata, resourceVersion: "7" } };
    const jobKey = `causeway/${job.metadata.name}`;
    jobCreates.begin(jobKey);
    expect(predicates.ownedEvent("job", OWNER, KEY, job, "add")).toBe("held");
    expect(jobCreates.settle(jobKey, "7")).toEqual({ own: 1, news: [] });
    const { jobCreates: later, predicates: afterAnswer } = setup(resourceAt("3", "Pending"));
    later.settle(jobKey, "7");
    expect(afterAnswer.ownedEvent("job", OWNER, KEY, job, "add")).toBe("own_job");
    expect(later.satisfied(jobKey)).toBe(true);
  });

  it("on a cached copy an own status write superseded, events wait for the write's echo", () => {
    const { statusWrites, predicates } = setup(resourceAt("4", "Pending"));
    statusWrites.settleUpdate(KEY, "5", "4");
    expect(predicates.ownedEvent("pod", OWNER, KEY, labelled(aPod().running(T0).build()), "update")).toBe(
      "deferred",
    );
    expect(statusWrites.observe(KEY, "5")).toEqual({ own: true, deferred: "unlessTerminal" });
    statusWrites.settleUpdate(KEY, "6", "4");
    expect(predicates.ownedEvent("job", OWNER, KEY, runningJob(), "update")).toBe("deferred");
    expect(statusWrites.observe(KEY, "6")).toEqual({ own: true, deferred: "always" });
  });

  it("remembers views only of objects the caches hold", () => {
    const { predicates } = setup(resourceAt("3", "Pending"));
    predicates.ownedEvent("job", OWNER, KEY, runningJob(), "add");
    predicates.ownedEvent("pod", OWNER, KEY, labelled(aPod().build()), "add");
    expect(predicates.size).toBe(2);
    predicates.ownedEvent("job", OWNER, KEY, runningJob(), "delete");
    predicates.ownedEvent("pod", OWNER, KEY, labelled(aPod().build()), "delete");
    expect(predicates.size).toBe(0);
  });
});
