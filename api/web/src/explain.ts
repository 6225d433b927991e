/** A refusal of the service as a sentence a person can act on, with when to retry. */
import { CausewayError } from "@causeway/api/client/errors";

/** The upload form's words for the service's field names (the form passes its own, with file names). */
export const FIELD_LABELS: Readonly<Record<string, string>> = {
  dataset_control: "Control cells",
  dataset_pert: "Perturbed cells",
  dataset: "Merged dataset",
  degs: "DEGs",
};

/**
 * A message of the service or of the SDK's checks with its field paths ("body.dataset_control: …",
 * "degs.3: …") said in the form's words ("Control cells (fake.h5ad): …"): a field the form names
 * gets its label, any other loses the internal "body." prefix.
 */
export function withFieldLabels(message: string, labels: Readonly<Record<string, string>> = {}): string {
  const all = { ...FIELD_LABELS, ...labels };
  return message.replace(
    /(^|;\s*)(body\.)?([A-Za-z_]+)((?:\.[A-Za-z0-9_]+)*):\s/g,
    (whole, start: string, body, name: string) => {
      const label = all[name];
      if (label !== undefined) return `${start}${label}: `;
      return body ? `${start}${name}: ` : whole;
    },
  );
}

export function explain(err: unknown, labels?: Readonly<Record<string, string>>): string {
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
      return `The upload is too large: ${withFieldLabels(err.message, labels)}`;
    case "service_unavailable":
      return `The service is busy or restarting.${when || " Try again in a few seconds."}`;
    case "network_error":
      return "The service did not answer. Check that it is running and try again.";
    case "not_found":
      return "There is no such prediction in this account (or its results are not ready).";
    default:
      return withFieldLabels(err.message, labels);
  }
}

/**
 * Whether trying the same read again may succeed: the service did not answer (the network or the
 * service down), was busy, or held the page back under a limit. A refusal of the request itself
 * (a bad key, no such prediction) or a fault of the page is not.
 */
export function retryable(err: unknown): boolean {
  if (!(err instanceof CausewayError)) return false;
  return (
    err.code === "network_error" ||
    err.code === "service_unavailable" ||
    err.code === "edge_blocked" ||
    err.code === "rate_limited"
  );
}
