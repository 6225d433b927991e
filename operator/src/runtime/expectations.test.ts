import { describe, expect, it } from "vitest";
import { Expectations, type DeferredWork, type Observation, type Settled } from "./expectations.ts";

/** One call on the store for key "k" and what it must answer. */
type Step =
  | { begin: true }
  | { hold: string; want: boolean }
  | { settle: string | undefined; want: Settled }
  | { settleUpdate: string | undefined; replaced: string | undefined; want: Settled }
  | { observe: string | undefined; want: Observation }
  | { isSuperseded: string | undefined; want: boolean }
  | { defer: DeferredWork }
  | { current: true }
  | { forget: true };

function run(store: Expectations, step: Step): unknown {
  if ("begin" in step) return store.begin("k");
  if ("hold" in step) return store.hold("k", step.hold);
  if ("settleUpdate" in step) return store.settleUpdate("k", step.settleUpdate, step.replaced);
  if ("settle" in step) return store.settle("k", step.settle);
  if ("observe" in step) return store.observe("k", step.observe);
  if ("isSuperseded" in step) return store.isSuperseded("k", step.isSuperseded);
  if ("defer" in step) return store.defer("k", step.defer);
  if ("current" in step) return store.current("k");
  return store.forget("k");
}

const none: Settled = { own: 0, news: [] };

const cases: { name: string; steps: Step[]; satisfied: boolean }[] = [
  {
    name: "a create's event before its answer is its own; nothing is left to expect",
    steps: [{ begin: true }, { hold: "5", want: true }, { settle: "5", want: { own: 1, news: [] } }],
    satisfied: true,
  },
  {
    name: "a create's event after its answer is its own",
    steps: [{ begin: true }, { settle: "5", want: none }, { observe: "5", want: { own: true } }],
    satisfied: true,
  },
  {
    name: "another version held during a write is news; the write's own is still expected",
    steps: [
      { begin: true },
      { hold: "4", want: true },
      { settle: "5", want: { own: 0, news: ["4"] } },
      { observe: "5", want: { own: true } },
    ],
    satisfied: true,
  },
  {
    name: "a failed write expects nothing and releases what it held as news",
    steps: [
      { begin: true },
      { hold: "4", want: true },
      { hold: "6", want: true },
      { settle: undefined, want: { own: 0, news: ["4", "6"] } },
      { observe: "4", want: { own: false } },
    ],
    satisfied: true,
  },
  {
    name: "with no write on its way nothing is held",
    steps: [{ hold: "4", want: false }],
    satisfied: true,
  },
  {
    name: "a later version seen first settles the expectation: the own one is not awaited any more",
    steps: [
      { settle: "5", want: none },
      { observe: "6", want: { own: false } },
      { observe: "5", want: { own: false } },
    ],
    satisfied: true,
  },
  {
    name: "an event of another type (no version) settles the expectation too",
    steps: [
      { settle: "5", want: none },
      { observe: undefined, want: { own: false } },
    ],
    satisfied: true,
  },
  {
    name: "an update supersedes the copy it replaced until its own event comes",
    steps: [
      { begin: true },
      { settleUpdate: "5", replaced: "4", want: none },
      { isSuperseded: "4", want: true },
      { isSuperseded: "5", want: false },
      { isSuperseded: undefined, want: false },
      { observe: "5", want: { own: true } },
      { isSuperseded: "4", want: false },
    ],
    satisfied: true,
  },
  {
    name: "an update whose own event came before its answer supersedes nothing",
    steps: [
      { begin: true },
      { hold: "5", want: true },
      { settleUpdate: "5", replaced: "4", want: { own: 1, news: [] } },
      { isSuperseded: "4", want: false },
    ],
    satisfied: true,
  },
  {
    name: "an update that produced no new version has no event to wait for",
    steps: [
      { begin: true },
      { settleUpdate: "4", replaced: "4", want: none },
      { isSuperseded: "4", want: false },
      { observe: "4", want: { own: false } },
    ],
    satisfied: true,
  },
  {
    name: "an update of a copy without a version expects nothing",
    steps: [{ begin: true }, { settleUpdate: "5", replaced: undefined, want: none }],
    satisfied: true,
  },
  {
    name: "deferred work comes back with the own event; always outranks unlessTerminal",
    steps: [
      { settleUpdate: "5", replaced: "4", want: none },
      { defer: "unlessTerminal" },
      { defer: "always" },
      { defer: "unlessTerminal" },
      { observe: "5", want: { own: true, deferred: "always" } },
    ],
    satisfied: true,
  },
  {
    name: "work deferred only for a live resource comes back as such",
    steps: [
      { settleUpdate: "5", replaced: "4", want: none },
      { defer: "unlessTerminal" },
      { observe: "5", want: { own: true, deferred: "unlessTerminal" } },
    ],
    satisfied: true,
  },
  {
    name: "news drops deferred work (its pass does it) but keeps the superseded copy",
    steps: [
      { settleUpdate: "5", replaced: "4", want: none },
      { defer: "always" },
      { observe: "6", want: { own: false } },
      { isSuperseded: "4", want: true },
    ],
    satisfied: false,
  },
  {
    name: "a pass on a current copy clears the superseded copy and deferred work, not the expectation",
    steps: [
      { settleUpdate: "5", replaced: "4", want: none },
      { defer: "always" },
      { current: true },
      { isSuperseded: "4", want: false },
      { observe: "5", want: { own: true } },
    ],
    satisfied: true,
  },
  {
    name: "a gone object is forgotten",
    steps: [{ settleUpdate: "5", replaced: "4", want: none }, { defer: "always" }, { forget: true }],
    satisfied: true,
  },
  {
    name: "an expectation left open is not satisfied",
    steps: [{ settle: "5", want: none }],
    satisfied: false,
  },
  {
    name: "a write on its way is not satisfied",
    steps: [{ begin: true }],
    satisfied: false,
  },
];

describe("Expectations", () => {
  it.each(cases)("$name", ({ steps, satisfied }) => {
    const store = new Expectations();
    for (const step of steps) {
      const got = run(store, step);
      if ("want" in step) expect(got, JSON.stringify(step)).toEqual(step.want);
    }
    expect(store.satisfied("k")).toBe(satisfied);
    expect(store.size).toBe(satisfied ? 0 : 1);
  });

  it("keeps keys apart", () => {
    const store = new Expectations();
    store.begin("a");
    expect(store.hold("b", "1")).toBe(false);
    store.settleUpdate("a", "2", "1");
    store.defer("a", "always");
    expect(store.isSuperseded("b", "1")).toBe(false);
    expect(store.observe("b", "2")).toEqual({ own: false });
    expect(store.observe("a", "2")).toEqual({ own: true, deferred: "always" });
    expect(store.size).toBe(0);
  });
});
