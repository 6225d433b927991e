/**
 * Waiting for a job to finish. A prediction is followed through its event stream (one request
 * however long the job runs), then its full record is read once; when the stream is not there
 * (an older server) or breaks, the wait goes on by polling. The polling interval starts at the budget's
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
  /** Follow a prediction's event stream (default true); false polls from the start. */
  stream?: boolean;
  sleep?: Sleep;
  now?: () => number;
}

const TERMINAL = new Set(["completed", "failed"]);

export async function waitForPrediction(
  client: CausewayClient,
  id: string,
  options: WaitOptions = {},
): Promise<PredictionStatus> {
  if (options.stream !== false && (await followEvents(client, id, options))) {
    // The events carry progress only; the record with its results is read once, at the end.
    return client.getPrediction(id);
  }
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

/**
 * Reports the stream's changes until the terminal event: true when it came. False when the
 * stream ended early or could not be opened for a reason polling may not share (a network
 * break, an older server without the route); errors that polling would meet too are thrown.
 */
async function followEvents(client: CausewayClient, id: string, options: WaitOptions): Promise<boolean> {
  const abort = new AbortController();
  const timer =
    options.timeoutMs === undefined ? undefined : setTimeout(() => abort.abort(), options.timeoutMs);
  let last = "";
  try {
    for await (const { data } of client.predictionEvents(id, abort.signal)) {
      const progress: Progress = {
        status: data.status,
        processing_step: data.processing_step ?? null,
        progress_pct: data.progress_pct ?? null,
      };
      const key = JSON.stringify(progress);
      if (key !== last) options.onProgress?.(progress);
      last = key;
      if (TERMINAL.has(progress.status)) return true;
    }
    return false;
  } catch (err) {
    if (abort.signal.aborted)
      throw new CausewayError("wait_timeout", "the job had not finished when the wait timed out", 0);
    if (
      err instanceof CausewayError &&
      err.code !== "network_error" &&
      err.status !== 404 &&
      err.status !== 405
    )
      throw err;
    return false;
  } finally {
    clearTimeout(timer);
    abort.abort();
  }
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
