/**
 * How the client spaces its requests: a sliding-window budget that keeps one client under the
 * service's edge limit (30 requests per 60 s per address, service-spec §8), and the waits
 * between retries (Retry-After when the service gives one, otherwise jittered exponential
 * backoff, so that many clients blocked together do not come back together).
 */

export type Sleep = (ms: number) => Promise<void>;
export const realSleep: Sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

/** At most `limit` requests in any `windowMs`; `take()` waits until one more is allowed. */
export class RequestBudget {
  private readonly sent: number[] = [];
  readonly limit: number;
  readonly windowMs: number;
  private readonly now: () => number;
  private readonly sleep: Sleep;

  constructor(limit: number, windowMs: number, now: () => number = Date.now, sleep: Sleep = realSleep) {
    this.limit = limit;
    this.windowMs = windowMs;
    this.now = now;
    this.sleep = sleep;
  }

  async take(): Promise<void> {
    for (;;) {
      const t = this.now();
      while (this.sent.length > 0 && this.sent[0]! <= t - this.windowMs) this.sent.shift();
      if (this.sent.length < this.limit) {
        this.sent.push(t);
        return;
      }
      await this.sleep(this.sent[0]! + this.windowMs - t + 1);
    }
  }

  /** The smallest interval that a steady poller can keep without ever waiting on the budget. */
  get steadyIntervalMs(): number {
    return Math.ceil(this.windowMs / this.limit);
  }
}

/** "Full jitter" backoff: uniform in [cap/2, cap] with cap = min(maxMs, baseMs * 2^attempt). */
export function backoffMs(attempt: number, baseMs: number, maxMs: number, random: () => number): number {
  const cap = Math.min(maxMs, baseMs * 2 ** attempt);
  return Math.round(cap / 2 + (random() * cap) / 2);
}

/** Retry-After as milliseconds (delta-seconds or an HTTP date), or null when absent or unreadable. */
export function retryAfterMs(header: string | null, now: number): number | null {
  if (header === null || header.trim() === "") return null;
  const seconds = Number(header);
  if (Number.isFinite(seconds) && seconds >= 0) return seconds * 1000;
  const date = Date.parse(header);
  return Number.isNaN(date) ? null : Math.max(0, date - now);
}
