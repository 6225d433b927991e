import { describe, expect, it } from "vitest";
import { findCondition, isConditionTrue, removeCondition, setCondition } from "./conditions.ts";

const t1 = new Date("2026-01-01T00:00:00.000Z");
const t2 = new Date("2026-01-01T00:05:00.000Z");

describe("setCondition", () => {
  it("adds a new condition with the current time and generation", () => {
    const list = setCondition(
      [],
      { type: "Running", status: "False", reason: "JobPending", message: "m" },
      t1,
      3,
    );
    expect(list).toEqual([
      {
        type: "Running",
        status: "False",
        reason: "JobPending",
        message: "m",
        lastTransitionTime: t1.toISOString(),
        observedGeneration: 3,
      },
    ]);
  });

  it("keeps lastTransitionTime when the status does not flip, updating reason and message", () => {
    const a = setCondition(
      [],
      { type: "Running", status: "False", reason: "JobPending", message: "m" },
      t1,
      1,
    );
    const b = setCondition(a, { type: "Running", status: "False", reason: "Other", message: "n" }, t2, 2);
    expect(b[0]).toMatchObject({
      reason: "Other",
      message: "n",
      lastTransitionTime: t1.toISOString(),
      observedGeneration: 2,
    });
  });

  it("moves lastTransitionTime when the status flips", () => {
    const a = setCondition(
      [],
      { type: "Running", status: "False", reason: "JobPending", message: "m" },
      t1,
      1,
    );
    const b = setCondition(a, { type: "Running", status: "True", reason: "PodRunning", message: "m" }, t2, 1);
    expect(b[0]?.lastTransitionTime).toBe(t2.toISOString());
  });

  it("never mutates its input", () => {
    const a = setCondition(
      [],
      { type: "Running", status: "False", reason: "JobPending", message: "m" },
      t1,
      1,
    );
    const copy = structuredClone(a);
    setCondition(a, { type: "Running", status: "True", reason: "PodRunning", message: "m" }, t2, 1);
    removeCondition(a, "Running");
    expect(a).toEqual(copy);
  });

  it("finds and removes by type", () => {
    const a = setCondition(
      [],
      { type: "Complete", status: "True", reason: "JobSucceeded", message: "" },
      t1,
      1,
    );
    expect(isConditionTrue(a, "Complete")).toBe(true);
    expect(findCondition(a, "Failed")).toBeUndefined();
    expect(removeCondition(a, "Complete")).toEqual([]);
  });
});
