/** The one error type of the SDK: the service's answer, or a transport failure, with a stable code. */

/** Codes the client adds to the service's own (X-Service-Error-Code). */
export type ClientErrorCode =
  | "edge_blocked" // 403 with an HTML body and no error-code header: the edge limit
  | "network_error"
  | "invalid_response"
  | "invalid_input"
  | "job_failed"
  | "wait_timeout"
  | "http_error"; // an error answer without a code

export class CausewayError extends Error {
  /** The service's X-Service-Error-Code, or one of ClientErrorCode. */
  readonly code: string;
  /** HTTP status; 0 when no answer arrived. */
  readonly status: number;
  readonly retryAfterMs: number | null;

  constructor(code: string, message: string, status: number, retryAfterMs: number | null = null) {
    super(message);
    this.name = "CausewayError";
    this.code = code;
    this.status = status;
    this.retryAfterMs = retryAfterMs;
  }

  /** One line for a terminal: `code: message (HTTP status)`. */
  oneLine(): string {
    return `${this.code}: ${this.message}${this.status > 0 ? ` (HTTP ${this.status})` : ""}`;
  }
}

interface ValidationDetail {
  loc?: unknown;
  msg?: unknown;
}

/** The message of an error body: `detail` as a string, or the 422 items as `loc: msg; …`. */
export function detailMessage(body: unknown): string | null {
  if (!body || typeof body !== "object" || !("detail" in body)) return null;
  const detail = (body as { detail: unknown }).detail;
  if (typeof detail === "string") return detail;
  if (Array.isArray(detail))
    return detail
      .map((item: ValidationDetail) => {
        const loc = Array.isArray(item.loc) ? item.loc.join(".") : "";
        return `${loc}: ${typeof item.msg === "string" ? item.msg : "invalid"}`;
      })
      .join("; ");
  return null;
}
