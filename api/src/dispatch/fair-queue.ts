/**
 * The local executor's waiting jobs, predictions and causal analyses in one order: first come
 * first served within a fair share across accounts (start-time fair queueing). Each job gets a
 * start tag, the later of the queue's virtual time (the tag of the job dispatched last) and the
 * end of its account's previous job; the job with the lowest tag goes next, the earliest
 * submitted among equals. So an account with a backlog of N jobs delays another account's job by
 * at most one of its jobs, not by N; an account that waited its turn is not passed by a job
 * submitted after its own (the round-robin ring this replaces let one could); and within an
 * account jobs keep their submission order. Hand-written: a few lines over two Maps.
 */
interface Entry<T> {
  item: T;
  start: number;
  seq: number;
}

export class FairQueue<T> {
  private readonly accountOf: (item: T) => string;
  private readonly byAccount = new Map<string, Entry<T>[]>();
  /** End tag of each account's last queued job (an account's next job starts no earlier). */
  private readonly finish = new Map<string, number>();
  /** Start tag of the job dispatched last. */
  private virtualTime = 0;
  private nextSeq = 0;
  private count = 0;

  constructor(accountOf: (item: T) => string) {
    this.accountOf = accountOf;
  }

  get length(): number {
    return this.count;
  }

  push(item: T): void {
    const account = this.accountOf(item);
    const start = Math.max(this.virtualTime, this.finish.get(account) ?? 0);
    this.finish.set(account, start + 1);
    const entry = { item, start, seq: this.nextSeq++ };
    const fifo = this.byAccount.get(account);
    if (fifo) fifo.push(entry);
    else this.byAccount.set(account, [entry]);
    this.count++;
  }

  /** The next item: the lowest start tag, the earliest submitted among equals; undefined when empty. */
  shift(): T | undefined {
    let best: { account: string; entry: Entry<T> } | undefined;
    for (const [account, fifo] of this.byAccount) {
      const head = fifo[0]!;
      if (
        !best ||
        head.start < best.entry.start ||
        (head.start === best.entry.start && head.seq < best.entry.seq)
      )
        best = { account, entry: head };
    }
    if (!best) return undefined;
    const fifo = this.byAccount.get(best.account)!;
    fifo.shift();
    if (fifo.length === 0) this.byAccount.delete(best.account);
    this.count--;
    this.virtualTime = Math.max(this.virtualTime, best.entry.start);
    // An idle account whose last job ends by now starts at the virtual time anyway.
    for (const [account, end] of this.finish)
      if (end <= this.virtualTime && !this.byAccount.has(account)) this.finish.delete(account);
    return best.entry.item;
  }

  /** Removes the first item matching `pred`; whether one was removed. */
  remove(pred: (item: T) => boolean): boolean {
    for (const [account, fifo] of this.byAccount) {
      const i = fifo.findIndex((e) => pred(e.item));
      if (i < 0) continue;
      fifo.splice(i, 1);
      this.count--;
      if (fifo.length === 0) this.byAccount.delete(account);
      return true;
    }
    return false;
  }

  clear(): void {
    this.byAccount.clear();
    this.finish.clear();
    this.virtualTime = 0;
    this.count = 0;
  }
}
