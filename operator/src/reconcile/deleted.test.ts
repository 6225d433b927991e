import { describe, expect, it } from "vitest";
import { aCausalAnalysis, aPrediction, JOB_ID } from "../../../test/builders/prediction.ts";
import type { CausewayResource } from "@causeway/contract";
import { decideDeleted } from "./deleted.ts";

interface Case {
  name: string;
  /** The last state the informer had of the deleted resource. */
  last: CausewayResource;
  /** The failure report's code, or null for "nothing to tell the API". */
  wantReport: string | null;
}

const cases: Case[] = [
  {
    name: "deleted while its runner ran (an admin's cancel): reported as internal_error",
    last: aPrediction().created().status({ phase: "Processing" }).build(),
    wantReport: "internal_error",
  },
  {
    name: "deleted while its pod was pending: reported",
    last: aPrediction().created().build(),
    wantReport: "internal_error",
  },
  {
    name: "deleted before the operator's first pass wrote any status: reported (the API's job is pending)",
    last: aPrediction().build(),
    wantReport: "internal_error",
  },
  {
    name: "a CausalAnalysis deleted while it ran: reported",
    last: { ...aCausalAnalysis(), status: { phase: "Processing" } },
    wantReport: "internal_error",
  },
  {
    name: "deleted after it completed (its TTL, or by hand): nothing",
    last: aPrediction().created().status({ phase: "Completed" }).build(),
    wantReport: null,
  },
  {
    name: "deleted after it failed: nothing (the API has the failure already)",
    last: aPrediction().created().status({ phase: "Failed" }).build(),
    wantReport: null,
  },
  {
    name: "the runner's completion mirrored, the operator's status not yet terminal: nothing",
    last: aPrediction().created().reported({ status: "completed" }).build(),
    wantReport: null,
  },
  {
    name: "the runner's failure mirrored: nothing",
    last: aPrediction().created().reported({ status: "failed", errorCode: "no_degs_detected" }).build(),
    wantReport: null,
  },
  {
    name: "only progress mirrored: reported",
    last: aPrediction().created().reported({ status: "processing", progressPct: 40 }).build(),
    wantReport: "internal_error",
  },
];

describe("decideDeleted", () => {
  it.each(cases)("$name", (c) => {
    const d = decideDeleted(c.last);
    expect(d.status).toBeNull();
    expect(d.events).toEqual([]);
    expect(d.requeueAfterMs).toBeNull();
    const reports = d.actions.flatMap((a) => (a.type === "reportFailure" ? [a.errorCode] : []));
    expect(reports).toEqual(c.wantReport ? [c.wantReport] : []);
    expect(d.actions).toHaveLength(reports.length);
  });

  it("says the job's resource was deleted in the cluster", () => {
    const d = decideDeleted(aPrediction().created().build());
    expect(d.actions).toEqual([
      {
        type: "reportFailure",
        errorCode: "internal_error",
        message: `The job's Prediction resource ${JOB_ID} was deleted in the cluster before the job finished.`,
      },
    ]);
  });

  it("never mutates the last state", () => {
    const last = aPrediction().created().build();
    const before = structuredClone(last);
    decideDeleted(last);
    expect(last).toEqual(before);
  });
});
