/**
 * Waiting for a job to finish by polling its status. The interval starts at the budget's
 * steady rate (2 s for 30 requests a minute), grows by half while nothing changes up to a
 * ceiling, and drops back when progress moves; the client's request budget keeps the total
 * under the edge limit whatever else the process sends, and rate_limited / edge answers are
 * retried inside the SDK after Retry-After.
 */
import type { CausalAnalysisStatus, CausewayClient, PredictionStatus } from "./sdk.ts";
import { CausewayError } from "./errors.ts";
import { realSleep, type Sleep } from "./pacing.ts";

export type JobKind = "prediction" | "causal_analysis";

export interface Progress {
  status: string;
  processing_step: string | null;
  progress_pct: number | null;
}

export interface WaitOptions {
  onProgress?: (p: Progress) => void;
  /** Longest pause between two polls (default 15 s). */
  maxIntervalMs?: number;
  /** Give up after this long (default: never). */
  timeoutMs?: number;
  sleep?: Sleep;
  now?: () => number;
}

const TERMINAL = new Set(["completed", "failed"]);

export function waitForPrediction(
  client: CausewayClient,
  id: string,
  options: WaitOptions = {},
): Promise<PredictionStatus> {
  // Results are only attached once the job is completed, so polling the full record is cheap
  // until the last answer, which is the record the caller wants.
  return poll(
    () => client.getPrediction(id),
    client,
    options,
    (s) => ({
      status: s.status,
      processing_step: s.processing_step ?? null,
      progress_pct: s.progress_pct ?? null,
    }),
  );
}

export function waitForCausalAnalysis(
  client: CausewayClient,
  id: string,
  options: WaitOptions = {},
): Promise<CausalAnalysisStatus> {
  return poll(
    () => client.getCausalAnalysis(id),
    client,
    options,
    (s) => ({
      status: s.status,
      processing_step: null,
      progress_pct: s.status === "completed" ? 100 : null,
    }),
  );
}

async function poll<T>(
  fetchStatus: () => Promise<T>,
  client: CausewayClient,
  options: WaitOptions,
  progressOf: (s: T) => Progress,
): Promise<T> {
  const sleep = options.sleep ?? realSleep;
  const now = options.now ?? Date.now;
  const minMs = client.budget.steadyIntervalMs;
  const maxMs = Math.max(minMs, options.maxIntervalMs ?? 15_000);
  const deadline = options.timeoutMs === undefined ? Infinity : now() + options.timeoutMs;
  let interval = minMs;
  let last = "";
  for (;;) {
    const status = await fetchStatus();
    const progress = progressOf(status);
    const key = JSON.stringify(progress);
    if (key !== last) {
      options.onProgress?.(progress);
      interval = minMs;
      last = key;
    } else interval = Math.min(maxMs, Math.round(interval * 1.5));
    if (TERMINAL.has(progress.status)) return status;
    if (now() + interval > deadline)
      throw new CausewayError("wait_timeout", `still ${progress.status} when the wait timed out`, 0);
    await sleep(interval);
  }
}
