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
