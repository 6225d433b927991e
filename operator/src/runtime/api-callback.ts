/**
 * Reports failures that only the operator can see (OOMKilled, deadline exceeded, a pod that
 * never started, a vanished Job) to the API through the runner's own signed callback route,
 * so the prediction in PostgreSQL fails at once with its error code instead of waiting for
 * the API's stuck-job sweeper. The API applies callbacks idempotently and a finished job never
 * changes again, so a report racing a runner's own final callback is harmless.
 */
import {
  CALLBACK_RETRY,
  FAILURE_CODES,
  callbackUrl,
  deriveCallbackKey,
  sendCallback,
  type CallbackRetryPolicy,
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

/**
 * A reporter posting to `<baseUrl>/internal/v1/jobs/<kind>/<id>/callback`. It retries by
 * `CALLBACK_RETRY.backedBySweeper` and then gives up: the API's sweeper is the backstop.
 */
export function httpFailureReporter(options: {
  baseUrl: string;
  serverSecret: string;
  onGiveUp: (report: FailureReport, reason: string) => void;
  policy?: CallbackRetryPolicy;
  sleep?: (ms: number) => Promise<void>;
}): FailureReporter {
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
    const delivery = await sendCallback(
      {
        url: callbackUrl(options.baseUrl, report.kind, report.jobId),
        keyHex: deriveCallbackKey(options.serverSecret, report.jobId),
        body,
      },
      options.policy ?? CALLBACK_RETRY.backedBySweeper,
      { sleep: options.sleep },
    );
    if (!delivery.delivered) options.onGiveUp(report, delivery.reason);
  };
}
