/**
 * The one client of the signed callback route (service-spec §6), used by the runner for its
 * reports and by the operator for failures only it can see. Each attempt is signed afresh (the
 * API rejects timestamps outside ±300 s), has its own timeout, and is retried only when a retry
 * can help: network errors, 408, 429 and 5xx. Any other answer (a bad signature, an unknown
 * job) will not get better and ends the delivery at once. How long to keep trying is the
 * caller's policy, because the senders lose different things when a callback is lost.
 * Only node:http(s) and node:crypto (through the signing), so the contract stays dependency-free.
 * Not the global fetch: its first use loads undici, ~19 MB of resident memory in every runner
 * for a dozen small POSTs per job.
 */
import { request as httpRequest, type IncomingHttpHeaders } from "node:http";
import { request as httpsRequest } from "node:https";
import { CALLBACK_HEADERS, signCallback } from "./callback-auth.ts";
import type { RunnerCallback } from "./callback.ts";

/** How hard one delivery tries. */
export interface CallbackRetryPolicy {
  /** Sends at most this many times. */
  attempts: number;
  /** The wait after the first failed attempt; it doubles after each further one, up to `maxDelayMs`. */
  firstDelayMs: number;
  maxDelayMs: number;
  /** How long one attempt may take. */
  timeoutMs: number;
}

/** The retry policies, named for what a lost callback costs. */
export const CALLBACK_RETRY = {
  /** A runner's progress step: a lost one costs a stale progress bar, so the job does not wait on it. */
  bestEffort: { attempts: 3, firstDelayMs: 500, maxDelayMs: 30_000, timeoutMs: 10_000 },
  /**
   * A runner's final report carries the job's result, and nothing else does: about two minutes,
   * which outlasts an API rollout (not a long outage).
   */
  carriesResult: { attempts: 10, firstDelayMs: 500, maxDelayMs: 30_000, timeoutMs: 10_000 },
  /**
   * The operator's report of a failure it saw (OOM, deadline, a pod that never started) only
   * makes the API learn sooner: the resource's status keeps the reason and the API's stuck-job
   * sweeper fails the job anyway. About a minute, in the background, with short attempts.
   */
  backedBySweeper: { attempts: 6, firstDelayMs: 1_000, maxDelayMs: 20_000, timeoutMs: 5_000 },
} as const satisfies Record<string, CallbackRetryPolicy>;

/** One callback to deliver. */
export interface SignedCallback {
  /** The job's callback URL (`callbackUrl` of the contract). */
  url: string;
  /** The job's callback key as hex (`deriveCallbackKey`). */
  keyHex: string;
  body: RunnerCallback;
  /** Extra request headers, such as the trace context. */
  headers?: Record<string, string>;
}

/** How a delivery ended; `reason` says why the last attempt failed. */
export type CallbackDelivery = { delivered: true } | { delivered: false; reason: string };

type Sleep = (ms: number) => Promise<void>;
const realSleep: Sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

/** POSTs `body` and resolves with the answer's status; the answer's body is drained unread. */
function post(url: string, headers: IncomingHttpHeaders, body: string, timeoutMs: number): Promise<number> {
  return new Promise((resolve, reject) => {
    const target = new URL(url);
    const send = target.protocol === "https:" ? httpsRequest : httpRequest;
    const req = send(
      target,
      {
        method: "POST",
        headers: { ...headers, "content-length": String(Buffer.byteLength(body)) },
        signal: AbortSignal.timeout(timeoutMs),
      },
      (res) => {
        res.on("error", reject);
        res.on("end", () => resolve(res.statusCode ?? 0));
        res.resume();
      },
    );
    req.on("error", reject);
    req.end(body);
  });
}

/** Statuses a later attempt may get past: a timeout, throttling, a server error. */
const isRetryable = (status: number): boolean => status === 408 || status === 429 || status >= 500;

/** Signs and posts a callback, retrying by `policy`; never throws. */
export async function sendCallback(
  callback: SignedCallback,
  policy: CallbackRetryPolicy,
  options: { sleep?: Sleep; onAttemptFailed?: (reason: string, attempt: number) => void } = {},
): Promise<CallbackDelivery> {
  const sleep = options.sleep ?? realSleep;
  const raw = JSON.stringify(callback.body);
  let reason = "no attempt made";
  for (let attempt = 1; attempt <= policy.attempts; attempt++) {
    const timestamp = Math.floor(Date.now() / 1000);
    try {
      const status = await post(
        callback.url,
        {
          ...callback.headers,
          "content-type": "application/json",
          [CALLBACK_HEADERS.timestamp]: String(timestamp),
          [CALLBACK_HEADERS.signature]: signCallback(callback.keyHex, timestamp, raw),
        },
        raw,
        policy.timeoutMs,
      );
      if (status >= 200 && status < 300) return { delivered: true };
      reason = `HTTP ${status}`;
      options.onAttemptFailed?.(reason, attempt);
      if (!isRetryable(status)) break;
    } catch (err) {
      reason = err instanceof Error ? err.message : String(err);
      options.onAttemptFailed?.(reason, attempt);
    }
    if (attempt < policy.attempts)
      await sleep(Math.min(policy.maxDelayMs, policy.firstDelayMs * 2 ** (attempt - 1)));
  }
  return { delivered: false, reason };
}
