/**
 * One request budget for every tab of this origin. The edge limit counts requests per address,
 * so six result pages opened side by side share 30 a minute; the SDK's budget lives in one tab's
 * memory and cannot see the others, and each tab would spend its own 26 and then be refused
 * (403s, retries, sections waiting). The times of the requests sent in the last window are kept
 * in IndexedDB (times only, nothing about the account), each read and update in one read-write
 * transaction: the browser runs the read-write transactions of all the origin's tabs on one
 * store one after another, so two tabs never take the same slot.
 *
 * Not localStorage under a Web Lock, as before: each tab reads its own copy of localStorage, which
 * learns of another tab's write a moment later, so a tab granted the lock could still read the
 * times as they were before the previous holder's write, and the tabs together went over.
 * Without IndexedDB (storage refused) the tab keeps the times in memory: the SDK's own budget
 * per tab still applies.
 */

const DB_NAME = "causeway";
const STORE = "request_budget";
const KEY = "times";

let db: Promise<IDBDatabase | null> | null = null;

function openDb(): Promise<IDBDatabase | null> {
  db ??= new Promise((resolve) => {
    try {
      const req = indexedDB.open(DB_NAME, 1);
      req.onupgradeneeded = () => req.result.createObjectStore(STORE);
      req.onsuccess = () => resolve(req.result);
      req.onerror = () => resolve(null);
      req.onblocked = () => resolve(null);
    } catch {
      resolve(null);
    }
  });
  return db;
}

/** This tab's times when the origin's store cannot be used. */
let localTimes: number[] = [];

const recent = (raw: unknown, now: number, windowMs: number): number[] =>
  Array.isArray(raw)
    ? raw.filter((t): t is number => typeof t === "number" && t > now - windowMs && t <= now + 1000)
    : []; // absent, or another version's format: start afresh

/**
 * Reads the times of the last window, lets `change` return the new times and a result, and
 * stores them, all in one transaction.
 */
async function update<T>(
  windowMs: number,
  change: (times: number[], now: number) => { times: number[]; result: T },
): Promise<T> {
  const store = await openDb();
  if (!store?.objectStoreNames.contains(STORE)) {
    const now = Date.now();
    const out = change(recent(localTimes, now, windowMs), now);
    localTimes = out.times;
    return out.result;
  }
  return new Promise<T>((resolve, reject) => {
    const tx = store.transaction(STORE, "readwrite");
    const os = tx.objectStore(STORE);
    let result: T;
    const get = os.get(KEY);
    get.onsuccess = () => {
      const now = Date.now();
      const out = change(recent(get.result, now, windowMs), now);
      result = out.result;
      os.put(out.times, KEY);
    };
    tx.oncomplete = () => resolve(result);
    tx.onerror = () => reject(tx.error ?? new Error("request budget: transaction failed"));
    tx.onabort = () => reject(tx.error ?? new Error("request budget: transaction aborted"));
  });
}

/** Takes a slot when there is one (0), or says how long until the oldest one frees (ms). */
function tryTake(limit: number, windowMs: number): Promise<number> {
  return update(windowMs, (times, now) => {
    times.sort((a, b) => a - b);
    if (times.length < limit) return { times: [...times, now], result: 0 };
    return { times, result: times[0]! + windowMs - now + 1 };
  });
}

/**
 * Counts the page's own loading (its HTML and the files fetched from the network, not from the
 * browser's cache) at the times it happened. The service does not count the web app's files
 * against the edge limit today; counting them here keeps a margin for a proxy in front of it that
 * does, at the cost of a tab opened while the others have spent the budget waiting a little.
 */
export function recordPageLoads(windowMs: number): void {
  const entries = [
    ...performance.getEntriesByType("navigation"),
    ...performance.getEntriesByType("resource"),
  ] as PerformanceResourceTiming[];
  const loads = entries
    .filter((e) => new URL(e.name, location.origin).origin === location.origin && e.transferSize > 0)
    .map((e) => Math.round(performance.timeOrigin + e.startTime));
  if (loads.length === 0) return;
  void update(windowMs, (times, now) => ({
    times: [...times, ...loads.filter((t) => t > now - windowMs)].sort((a, b) => a - b),
    result: undefined,
  })).catch(() => undefined); // nothing to share: the SDK's budget still applies
}

/**
 * Waits until this origin's tabs together have sent fewer than `limit` requests in the last
 * `windowMs`, then counts one more; `onWait` hears each wait (for the "waiting" notices).
 */
export async function takeShared(
  limit: number,
  windowMs: number,
  onWait: (ms: number) => void,
): Promise<void> {
  for (;;) {
    // A store that fails mid-session lets the request go: the SDK's own budget still holds it.
    const waitMs = await tryTake(limit, windowMs).catch(() => 0);
    if (waitMs <= 0) return;
    onWait(waitMs);
    await new Promise((resolve) => setTimeout(resolve, waitMs));
  }
}
