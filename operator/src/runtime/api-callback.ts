/**
 * Reports failures that only the operator can see (OOMKilled, deadline exceeded, a pod that
 * never started, a vanished Job) to the API through the runner's own signed callback route,
 * so the prediction in PostgreSQL fails at once with its error code instead of waiting for
 * the API's stuck-job sweeper. The API applies callbacks idempotently and a finished job never
 * changes again, so a report racing a runner's own final callback is harmless.
 */
import {
  FAILURE_CODES,
  callbackUrl,
  deriveCallbackKey,
  signCallback,
  type FailedCallback,
  type FailureCode,
  type JobKind,
} from "@causeway/contract";

export interface FailureReport {
  kind: JobKind;
  jobId: string;
  errorCode: FailureCode;
  message: string;
}

export type FailureReporter = (report: FailureReport) => Promise<void>;

type Sleep = (ms: number) => Promise<void>;

/**
 * A reporter posting to `<baseUrl>/internal/v1/jobs/<kind>/<id>/callback`. It retries with
 * backoff (about a minute in all) and then gives up: the API's sweeper is the backstop.
 */
export function httpFailureReporter(options: {
  baseUrl: string;
  serverSecret: string;
  onGiveUp: (report: FailureReport, reason: string) => void;
  attempts?: number;
  sleep?: Sleep;
}): FailureReporter {
  const attempts = options.attempts ?? 6;
  const sleep: Sleep = options.sleep ?? ((ms) => new Promise((r) => setTimeout(r, ms)));
  return async (report) => {
    const body: FailedCallback = {
      job_id: report.jobId,
      kind: report.kind,
      // Not a runner attempt: the operator speaks for the pod that could not.
      attempt: "operator",
      seq: 0,
      status: "failed",
      error_code: report.errorCode,
      error_message: report.message,
      error_detail: null,
      billable: FAILURE_CODES[report.errorCode].billable,
      result_files: [],
    };
    const raw = JSON.stringify(body);
    const key = deriveCallbackKey(options.serverSecret, report.jobId);
    let reason = "";
    for (let i = 0; i < attempts; i++) {
      const timestamp = Math.floor(Date.now() / 1000);
      try {
        const res = await fetch(callbackUrl(options.baseUrl, report.kind, report.jobId), {
          method: "POST",
          headers: {
            "content-type": "application/json",
            "x-causeway-timestamp": String(timestamp),
            "x-causeway-signature": signCallback(key, timestamp, raw),
          },
          body: raw,
          signal: AbortSignal.timeout(5_000),
        });
        if (res.ok) return;
        reason = `HTTP ${res.status}`;
        if (res.status < 500 && res.status !== 429) break;
      } catch (err) {
        reason = err instanceof Error ? err.message : String(err);
      }
      await sleep(Math.min(20_000, 1_000 * 2 ** i));
    }
    options.onGiveUp(report, reason);
  };
}
