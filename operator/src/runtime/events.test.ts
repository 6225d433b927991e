import { describe, expect, it } from "vitest";
import type { EventsV1Event } from "@kubernetes/client-node";
import { pino } from "pino";
import { aPrediction } from "../../../test/builders/prediction.ts";
import { FakeClock } from "./clock.ts";
import { EventRecorder } from "./events.ts";
import { microTime } from "./kube.ts";

function recorder(maxEntries = 1000) {
  const created: EventsV1Event[] = [];
  const patched: { name: string; patch: object }[] = [];
  const clock = new FakeClock(Date.parse("2026-01-01T00:00:00Z"));
  const gateway = {
    createEvent: async (_ns: string, e: EventsV1Event) => void created.push(e),
    patchEvent: async (_ns: string, name: string, patch: object) => void patched.push({ name, patch }),
  };
  const rec = new EventRecorder({
    gateway,
    clock,
    log: pino({ level: "silent" }),
    instance: "op-0",
    maxEntries,
  });
  return { rec, created, patched, clock };
}

describe("EventRecorder", () => {
  it("creates an events.k8s.io Event about the resource", async () => {
    const { rec, created } = recorder();
    await rec.record(aPrediction().build(), { type: "Normal", reason: "JobCreated", note: "Created Job x" });
    expect(created[0]).toMatchObject({
      reason: "JobCreated",
      note: "Created Job x",
      type: "Normal",
      action: "Reconcile",
      reportingController: "causeway.io/operator",
      regarding: { kind: "Prediction", uid: "uid-1" },
    });
    expect(String(created[0]?.eventTime)).toMatch(/\.\d{6}Z$/);
  });

  it("turns repeats into a series count on the first Event", async () => {
    const { rec, created, patched, clock } = recorder();
    const r = aPrediction().build();
    const ev = { type: "Warning" as const, reason: "JobConflict", note: "n" };
    await rec.record(r, ev);
    clock.advance(5_000);
    await rec.record(r, ev);
    await rec.record(r, ev);
    expect(created).toHaveLength(1);
    expect(patched.map((p) => p.patch)).toEqual([
      { series: { count: 2, lastObservedTime: microTime(clock.now()) } },
      { series: { count: 3, lastObservedTime: microTime(clock.now()) } },
    ]);
  });

  it("keeps a bounded memory and never throws", async () => {
    const { rec } = recorder(2);
    for (const reason of ["A", "B", "C", "D"])
      await rec.record(aPrediction().build(), { type: "Normal", reason, note: "" });
    expect(rec.size).toBe(2);
    const failing = new EventRecorder({
      gateway: {
        createEvent: async () => Promise.reject(new Error("403")),
        patchEvent: async () => undefined,
      },
      clock: new FakeClock(),
      log: pino({ level: "silent" }),
      instance: "op-0",
    });
    await expect(
      failing.record(aPrediction().build(), { type: "Normal", reason: "X", note: "" }),
    ).resolves.toBeUndefined();
  });
});
