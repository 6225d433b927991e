/**
 * The local executor's waiting jobs, taken round-robin across accounts: one FIFO per account
 * and a ring of the accounts that have work. `shift()` takes the head of the next account's
 * FIFO and moves that account to the back of the ring, so one account's backlog of N jobs
 * delays another account's job by at most one job per busy slot, not by N. Within an account
 * jobs keep their submission order. Hand-written: a few lines over two Maps, no library needed.
 */
export class FairQueue<T> {
  private readonly accountOf: (item: T) => string;
  private readonly byAccount = new Map<string, T[]>();
  /** Accounts with waiting items, next to serve first (a Map keeps insertion order). */
  private readonly ring = new Map<string, true>();
  private count = 0;

  constructor(accountOf: (item: T) => string) {
    this.accountOf = accountOf;
  }

  get length(): number {
    return this.count;
  }

  push(item: T): void {
    const account = this.accountOf(item);
    const fifo = this.byAccount.get(account);
    if (fifo) fifo.push(item);
    else this.byAccount.set(account, [item]);
    if (!this.ring.has(account)) this.ring.set(account, true);
    this.count++;
  }

  /** The next item in round-robin order, or undefined when empty. */
  shift(): T | undefined {
    const next = this.ring.keys().next();
    if (next.done) return undefined;
    const account = next.value;
    const fifo = this.byAccount.get(account)!;
    const item = fifo.shift()!;
    this.ring.delete(account);
    if (fifo.length > 0) this.ring.set(account, true);
    else this.byAccount.delete(account);
    this.count--;
    return item;
  }

  /** Removes the first item matching `pred`; whether one was removed. */
  remove(pred: (item: T) => boolean): boolean {
    for (const [account, fifo] of this.byAccount) {
      const i = fifo.findIndex(pred);
      if (i < 0) continue;
      fifo.splice(i, 1);
      this.count--;
      if (fifo.length === 0) {
        this.byAccount.delete(account);
        this.ring.delete(account);
      }
      return true;
    }
    return false;
  }

  clear(): void {
    this.byAccount.clear();
    this.ring.clear();
    this.count = 0;
  }
}
