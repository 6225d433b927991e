import { describe, expect, it } from "vitest";
import { WorkGate, WorkRefused, underGate } from "./work-gate.ts";

/** A work item that finishes when told to, recording when it started. */
function item(log: string[], name: string) {
  let finish!: () => void;
  const done = new Promise<void>((r) => (finish = r));
  return {
    finish,
    work: async () => {
      log.push(name);
      await done;
      return name;
    },
  };
}

const tick = () => new Promise((r) => setImmediate(r));

describe("WorkGate", () => {
  it("runs at most perAccount per account and total in all, refuses beyond the queue", async () => {
    const gate = new WorkGate({ total: 2, perAccount: 1, queuedPerAccount: 2, expectedMs: 4000 });
    const log: string[] = [];
    const a = [1, 2, 3].map((i) => item(log, `a${i}`));
    const runs = a.map((x) => gate.run("A", x.work));
    await tick();
    expect(log).toEqual(["a1"]);
    expect(gate.queued).toBe(2);
    const refused = await gate.run("A", async () => "a4").catch((e: unknown) => e);
    expect(refused).toBeInstanceOf(WorkRefused);
    // Three of A's items ahead, one at a time, about 4 s each.
    expect((refused as WorkRefused).retryAfterSeconds).toBe(12);

    // Another account is not queued behind A's backlog: it takes the free slot at once.
    const b = item(log, "b1");
    const bRun = gate.run("B", b.work);
    await tick();
    expect(log).toEqual(["a1", "b1"]);
    expect(gate.active).toBe(2);

    a[0]!.finish();
    await tick();
    expect(log).toEqual(["a1", "b1", "a2"]);
    b.finish();
    a[1]!.finish();
    a[2]!.finish();
    expect(await Promise.all([...runs, bRun])).toEqual(["a1", "a2", "a3", "b1"]);
    expect(gate.active).toBe(0);
    expect(gate.queued).toBe(0);
  });

  it("gives a freed slot to the account running the fewest, first come first served among equals", async () => {
    const gate = new WorkGate({ total: 2, perAccount: 2, queuedPerAccount: 5 });
    const log: string[] = [];
    const [a1, a2, a3] = [1, 2, 3].map((i) => item(log, `a${i}`));
    const b1 = item(log, "b1");
    const runs = [gate.run("A", a1!.work), gate.run("A", a2!.work), gate.run("A", a3!.work)];
    const bRun = gate.run("B", b1.work);
    await tick();
    expect(log).toEqual(["a1", "a2"]);
    a1!.finish();
    await tick();
    // a3 came first, but B runs nothing and A still runs one.
    expect(log).toEqual(["a1", "a2", "b1"]);
    a2!.finish();
    await tick();
    expect(log).toEqual(["a1", "a2", "b1", "a3"]);
    a3!.finish();
    b1.finish();
    await Promise.all([...runs, bRun]);
  });

  it("frees the slot when the work throws", async () => {
    const gate = new WorkGate({ total: 1, perAccount: 1, queuedPerAccount: 0 });
    await expect(gate.run("A", () => Promise.reject(new Error("boom")))).rejects.toThrow("boom");
    expect(gate.active).toBe(0);
    expect(await gate.run("A", async () => 1)).toBe(1);
  });

  it("underGate answers a refusal with the contract's 429 and Retry-After", async () => {
    const gate = new WorkGate({ total: 1, perAccount: 1, queuedPerAccount: 0, expectedMs: 2500 });
    const log: string[] = [];
    const x = item(log, "x");
    const run = underGate(gate, "A", x.work);
    const err = (await underGate(gate, "A", async () => "y").catch((e: unknown) => e)) as {
      statusCode: number;
      code: string;
      retryAfter: number;
    };
    expect(err.statusCode).toBe(429);
    expect(err.code.toLowerCase()).toBe("rate_limited");
    expect(err.retryAfter).toBe(3);
    x.finish();
    await run;
  });
});
