/**
 * One request budget for every tab of this origin. The edge limit counts requests per address,
 * so six result pages opened side by side share 30 a minute; the SDK's budget lives in one tab's
 * memory and cannot see the others, and each tab would spend its own 26 and then be refused
 * (403s, retries, sections waiting). The times of the requests sent in the last window are kept
 * in localStorage (times only, nothing about the account), read and updated under a Web Lock so
 * that two tabs never take the same slot. Without Web Locks (a page served over plain http to
 * another host) the update runs unlocked: two tabs may then rarely take one slot each at once.
 */

const KEY = "causeway.request_times";
const LOCK = "causeway.request_budget";

interface Locks {
  request<T>(name: string, callback: () => T | Promise<T>): Promise<T>;
}

function locks(): Locks | null {
  const l = (navigator as Navigator & { locks?: Locks }).locks;
  return l ?? null;
}

function readTimes(now: number, windowMs: number): number[] {
  try {
    const raw: unknown = JSON.parse(localStorage.getItem(KEY) ?? "[]");
    return Array.isArray(raw)
      ? raw.filter((t): t is number => typeof t === "number" && t > now - windowMs && t <= now + 1000)
      : [];
  } catch {
    return []; // unreadable (another version's format): start afresh
  }
}

/** Takes a slot when there is one (0), or says how long until the oldest one frees (ms). */
function tryTake(limit: number, windowMs: number): number {
  const now = Date.now();
  const times = readTimes(now, windowMs).sort((a, b) => a - b);
  if (times.length < limit) {
    times.push(now);
    try {
      localStorage.setItem(KEY, JSON.stringify(times));
    } catch {
      // Storage refused (private mode, full): the tab's own budget in the SDK still applies.
    }
    return 0;
  }
  return times[0]! + windowMs - now + 1;
}

/**
 * Counts the page's own loading (its HTML and the files fetched from the network, not from the
 * browser's cache) at the times it happened: the service counts them against the same limit,
 * and a tab opened while the others have spent the budget would otherwise push it over.
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
  const record = () => {
    const now = Date.now();
    const times = [...readTimes(now, windowMs), ...loads.filter((t) => t > now - windowMs)];
    try {
      localStorage.setItem(KEY, JSON.stringify(times.sort((a, b) => a - b)));
    } catch {
      // Storage refused: nothing to share.
    }
  };
  const l = locks();
  if (l) void l.request(LOCK, record);
  else record();
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
  const l = locks();
  for (;;) {
    const waitMs = l ? await l.request(LOCK, () => tryTake(limit, windowMs)) : tryTake(limit, windowMs);
    if (waitMs <= 0) return;
    onWait(waitMs);
    await new Promise((resolve) => setTimeout(resolve, waitMs));
  }
}
