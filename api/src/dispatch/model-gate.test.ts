import { describe, expect, it } from "vitest";
import type { JobSpec } from "@causeway/contract";
import type { Dispatcher } from "./dispatcher.ts";
import { ModelGate } from "./model-gate.ts";

/** A dispatcher that records what reaches it (the runner side is not under test here). */
function recorder(): Dispatcher & { dispatched: string[] } {
  const dispatched: string[] = [];
  return {
    dispatched,
    dispatch: async (spec) => void dispatched.push(spec.job_id),
    mirrorStatus: async () => {},
    close: async () => {},
  };
}

/** One import the test settles by hand. */
function anImport(version: string) {
  let settle!: (err?: Error) => void;
  let state: "pending" | "done" = "pending";
  const done = new Promise<void>((resolve, reject) => {
    settle = (err) => {
      state = "done";
      if (err) reject(err);
      else resolve();
    };
  });
  done.catch(() => undefined);
  return {
    settle,
    imports: {
      pending: (v: string) => v === version && state === "pending",
      whenReady: (v: string) => (v === version ? done : Promise.resolve()),
    },
  };
}

const spec = (id: string, model_version: string) =>
  ({ job_id: id, kind: "prediction", model_version }) as JobSpec;
const flush = () => new Promise((r) => setImmediate(r));

describe("ModelGate", () => {
  it("passes a job for an imported version straight through", async () => {
    const inner = recorder();
    const imp = anImport("v2");
    const waiting: string[] = [];
    const gate = new ModelGate({
      inner,
      imports: imp.imports,
      onWaiting: async (s) => void waiting.push(s.job_id),
      onFailed: async () => {},
    });
    await gate.dispatch(spec("a", "v1"), {});
    expect(inner.dispatched).toEqual(["a"]);
    expect(waiting).toEqual([]);
  });

  it("holds a job while its version imports, marks it waiting, and dispatches it when the import ends", async () => {
    const inner = recorder();
    const imp = anImport("v1");
    const waiting: string[] = [];
    const gate = new ModelGate({
      inner,
      imports: imp.imports,
      onWaiting: async (s) => void waiting.push(s.job_id),
      onFailed: async () => {},
    });
    await gate.dispatch(spec("a", "v1"), {});
    await gate.dispatch(spec("b", "v1"), {});
    expect(waiting).toEqual(["a", "b"]);
    expect(inner.dispatched).toEqual([]);
    imp.settle();
    await flush();
    expect(inner.dispatched).toEqual(["a", "b"]);
  });

  it("fails the held jobs when the import fails", async () => {
    const inner = recorder();
    const imp = anImport("v1");
    const failed: [string, string][] = [];
    const gate = new ModelGate({
      inner,
      imports: imp.imports,
      onWaiting: async () => {},
      onFailed: async (s, reason) => void failed.push([s.job_id, reason]),
    });
    await gate.dispatch(spec("a", "v1"), {});
    imp.settle(new Error("ENOENT /somewhere/network.tsv"));
    await flush();
    expect(inner.dispatched).toEqual([]);
    // The reason names the version, not the server's paths.
    expect(failed).toEqual([["a", "model version v1 could not be imported"]]);
  });

  it("passes the inner dispatcher's optional capabilities through, and warms it for a held job", async () => {
    const warmed: string[] = [];
    const cancelled: string[] = [];
    const inner = {
      ...recorder(),
      prewarm: () => void warmed.push("warm"),
      cancel: (id: string) => void cancelled.push(id),
    };
    const imp = anImport("v3");
    const gate = new ModelGate({
      inner,
      imports: imp.imports,
      onWaiting: async () => {},
      onFailed: async () => {},
    });
    gate.prewarm();
    gate.cancel("job-1");
    expect(warmed).toEqual(["warm"]);
    expect(cancelled).toEqual(["job-1"]);
    await gate.dispatch(spec("held", "v3"), {});
    expect(warmed).toEqual(["warm", "warm"]);
    imp.settle();
    await flush();
    expect(inner.dispatched).toEqual(["held"]);
  });

  it("is a no-op for capabilities the inner dispatcher lacks (a cluster's)", () => {
    const gate = new ModelGate({
      inner: recorder(),
      imports: anImport("v1").imports,
      onWaiting: async () => {},
      onFailed: async () => {},
    });
    expect(() => {
      gate.prewarm();
      gate.cancel("job-1");
    }).not.toThrow();
  });
});
