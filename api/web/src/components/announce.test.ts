import { describe, expect, it } from "vitest";
import { announcement, MIN_INTERVAL_MS, type Announced, type JobState } from "./announce.ts";

/** The sentences a sequence of states at the given times announces. */
function said(states: [number, JobState][]): string[] {
  let last: Announced | null = null;
  const out: string[] = [];
  for (const [at, s] of states) {
    const r = announcement(last, s, at);
    last = r.last;
    if (r.text) out.push(r.text);
  }
  return out;
}

describe("the job's live announcements", () => {
  it("announces each change of status and the completion, not the state found on arrival", () => {
    expect(
      said([
        [0, { status: "pending", pct: 0 }],
        [1000, { status: "processing", pct: 5, step: "reading_data" }],
        [2000, { status: "completed", pct: 100 }],
      ]),
    ).toEqual([
      "The prediction is running: 5 % done (reading data).",
      "The prediction is complete: the ranked targets are on the page.",
    ]);
  });

  it("does not announce every percent: progress at most every 20 points and 10 s", () => {
    const ticks: [number, JobState][] = [[0, { status: "processing", pct: 0 }]];
    for (let pct = 1; pct <= 99; pct++) ticks.push([pct * 500, { status: "processing", pct }]);
    const out = said(ticks);
    // 99 ticks over 50 s: each announcement needs 20 points and 10 s since the last.
    expect(out.length).toBeGreaterThan(0);
    expect(out.length).toBeLessThanOrEqual(4);
    expect(out[0]).toBe("The prediction is running: 20 % done.");
  });

  it("holds progress back within the interval even after a large jump", () => {
    expect(
      said([
        [0, { status: "processing", pct: 0 }],
        [MIN_INTERVAL_MS - 1, { status: "processing", pct: 60 }],
      ]),
    ).toEqual([]);
  });

  it("says nothing of the state a page finds on arrival, after loading it", () => {
    expect(
      said([
        [0, { status: "unknown", pct: 0 }],
        [500, { status: "completed", pct: 100 }],
      ]),
    ).toEqual([]);
  });

  it("announces a failure", () => {
    expect(
      said([
        [0, { status: "processing", pct: 40 }],
        [10, { status: "failed", pct: 40 }],
      ]),
    ).toEqual(["The prediction failed."]);
  });
});
