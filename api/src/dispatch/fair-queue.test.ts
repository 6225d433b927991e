import { describe, expect, it } from "vitest";
import { FairQueue } from "./fair-queue.ts";

const item = (account: string, n: number) => ({ account, id: `${account}${n}` });

describe("FairQueue", () => {
  it("takes jobs round-robin across accounts and in order within one", () => {
    const q = new FairQueue<{ account: string; id: string }>((x) => x.account);
    for (let i = 1; i <= 60; i++) q.push(item("a", i));
    q.push(item("b", 1));
    q.push(item("c", 1));
    q.push(item("b", 2));
    expect(q.length).toBe(63);
    const order = Array.from({ length: 7 }, () => q.shift()!.id);
    // The 60-job backlog of "a" delays "b" and "c" by one job, not by sixty.
    expect(order).toEqual(["a1", "b1", "c1", "a2", "b2", "a3", "a4"]);
    expect(q.length).toBe(56);
  });

  it("removes a queued job and forgets an account with nothing left", () => {
    const q = new FairQueue<{ account: string; id: string }>((x) => x.account);
    q.push(item("a", 1));
    q.push(item("b", 1));
    expect(q.remove((x) => x.id === "a1")).toBe(true);
    expect(q.remove((x) => x.id === "zz")).toBe(false);
    expect(q.shift()!.id).toBe("b1");
    expect(q.shift()).toBeUndefined();
    q.push(item("a", 2));
    q.clear();
    expect(q.length).toBe(0);
  });
});

describe("FairQueue: first come first served within a fair share", () => {
  it("does not let a backlogged account's next job pass another account's job submitted before it", () => {
    const q = new FairQueue<{ account: string; id: string }>((x) => x.account);
    // Account a has a backlog of analyses; two of them are dispatched (two busy slots).
    for (let i = 1; i <= 10; i++) q.push(item("a", i));
    expect([q.shift()!.id, q.shift()!.id]).toEqual(["a1", "a2"]);
    // Account b's prediction arrives; then a's backlog goes on.
    q.push(item("b", 1));
    q.push(item("a", 11));
    expect(q.shift()!.id).toBe("b1");
    expect(q.shift()!.id).toBe("a3");
  });

  it("serves accounts that are equally served in submission order, predictions and analyses alike", () => {
    const q = new FairQueue<{ account: string; id: string }>((x) => x.account);
    q.push(item("prediction-of-b", 1));
    q.push(item("analysis-of-a", 1));
    q.push(item("analysis-of-c", 1));
    expect([q.shift()!.id, q.shift()!.id, q.shift()!.id]).toEqual([
      "prediction-of-b1",
      "analysis-of-a1",
      "analysis-of-c1",
    ]);
  });

  it("gives an account that was idle no credit for the time it waited", () => {
    const q = new FairQueue<{ account: string; id: string }>((x) => x.account);
    for (let i = 1; i <= 5; i++) q.push(item("a", i));
    for (let i = 0; i < 4; i++) q.shift();
    // b arrives after a's fourth job (its start tag is a's fourth's): b first, then they alternate.
    q.push(item("b", 1));
    q.push(item("b", 2));
    q.push(item("a", 6));
    expect(Array.from({ length: 4 }, () => q.shift()!.id)).toEqual(["b1", "a5", "b2", "a6"]);
  });
});
