/**
 * Callback authentication. Each job gets its own HMAC key, derived (HKDF-SHA256) from a
 * server secret shared by the API and the operator, so no per-job key needs storing: the
 * operator puts it into a Secret owned by the runner Job, the local executor into the
 * runner thread's job environment, and the API re-derives it to verify. A signature covers the timestamp
 * and the raw body; the API rejects timestamps outside ±300 s.
 */
import { createHmac, hkdfSync, timingSafeEqual } from "node:crypto";

export const CALLBACK_HEADERS = {
  timestamp: "x-causeway-timestamp",
  signature: "x-causeway-signature",
} as const;

export const CALLBACK_MAX_SKEW_SECONDS = 300;

/** Path of a job's callback route on the API; runners get `<callback base URL><path>`. */
export const callbackPath = (kind: string, jobId: string): string =>
  `/internal/v1/jobs/${kind}/${jobId}/callback`;

/** The same path as a route pattern (Fastify style), for the API's router and its metrics. */
export const CALLBACK_ROUTE = callbackPath(":kind", ":job_id");

/** The full callback URL of a job under a base URL (no trailing slash needed). */
export const callbackUrl = (baseUrl: string, kind: string, jobId: string): string =>
  `${baseUrl.replace(/\/+$/, "")}${callbackPath(kind, jobId)}`;

/** The per-job key as hex. */
export function deriveCallbackKey(serverSecret: string, jobId: string): string {
  const key = hkdfSync("sha256", serverSecret, "causeway-callback", jobId, 32);
  return Buffer.from(key).toString("hex");
}

export function signCallback(keyHex: string, timestamp: number, rawBody: string): string {
  const mac = createHmac("sha256", Buffer.from(keyHex, "hex"))
    .update(`${timestamp}.${rawBody}`)
    .digest("hex");
  return `v1=${mac}`;
}

export type CallbackVerdict = "ok" | "bad_signature" | "stale";

export function verifyCallback(
  keyHex: string,
  timestamp: number,
  rawBody: string,
  signature: string,
  nowSeconds: number,
): CallbackVerdict {
  if (!Number.isFinite(timestamp) || Math.abs(nowSeconds - timestamp) > CALLBACK_MAX_SKEW_SECONDS)
    return "stale";
  const expected = Buffer.from(signCallback(keyHex, timestamp, rawBody));
  const given = Buffer.from(signature);
  if (expected.length !== given.length || !timingSafeEqual(expected, given)) return "bad_signature";
  return "ok";
}
