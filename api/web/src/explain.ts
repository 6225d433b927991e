/** A refusal of the service as a sentence a person can act on, with when to retry. */
import { CausewayError } from "@causeway/api/client/errors";

export function explain(err: unknown): string {
  if (!(err instanceof CausewayError)) return "Something went wrong in the page. Reload it and try again.";
  const when =
    err.retryAfterMs !== null
      ? ` Try again in ${Math.max(1, Math.ceil(err.retryAfterMs / 1000))} seconds.`
      : "";
  switch (err.code) {
    case "unauthorized":
      return "The service did not accept this API key. Check it, or ask your administrator for a new one.";
    case "rate_limited":
      return `You have sent too many predictions in a short time.${when || " Try again in a minute."}`;
    case "inflight_limit":
      return "Another prediction of this account is still running. Submit this one when it has finished.";
    case "external_prediction_quota_exceeded":
      return "This account has used all of its predictions. Ask your administrator to raise the quota.";
    case "job_type_not_allowed":
      return "This account may only submit target validation (a named target with the split upload).";
    case "edge_blocked":
      return `Too many requests came from this address in the last minute.${when || " Wait a minute and try again."}`;
    case "payload_too_large":
      return `The upload is too large: ${err.message}`;
    case "service_unavailable":
      return `The service is busy or restarting.${when || " Try again in a few seconds."}`;
    case "network_error":
      return "The service did not answer. Check that it is running and try again.";
    case "not_found":
      return "There is no such prediction in this account (or its results are not ready).";
    default:
      return err.message;
  }
}
