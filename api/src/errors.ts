/**
 * The API's error types: one @fastify/error constructor per stable code. The code is what
 * clients see in `X-Service-Error-Code`; the status is fixed here, once; the message is the
 * `detail` of the JSON body. The error handler (plugins/errors.ts) does the mapping.
 */
import createError from "@fastify/error";

export const Unauthorized = createError("unauthorized", "Missing or invalid API key.", 401);
export const CallbackUnauthorized = createError(
  "unauthorized",
  "Missing, stale or invalid callback signature.",
  401,
);
export const NotFound = createError("not_found", "Not found.", 404);
export const RateLimited = createError(
  "rate_limited",
  "Too many prediction requests for this API key; retry later.",
  429,
);
export const TooManyStreams = createError(
  "rate_limited",
  "Too many open event streams for this API key; close one or poll the status route.",
  429,
);
export const InflightLimit = createError(
  "inflight_limit",
  "Another prediction of this account is still pending or processing; wait for it to finish.",
  429,
);
export const CausalRateLimited = createError(
  "rate_limited",
  "Too many causal-analysis requests for this API key; retry later.",
  429,
);
export const CausalInflightLimit = createError(
  "inflight_limit",
  "This account has as many causal analyses pending or processing as it may; wait for one to finish.",
  429,
);
export const QuotaExceeded = createError(
  "external_prediction_quota_exceeded",
  "The lifetime prediction quota of this account is used up.",
  429,
);
export const HeavyReadLimited = createError(
  "rate_limited",
  "This account has as many large reads (causal graphs, large status previews) running and waiting as it may; retry after the Retry-After seconds.",
  429,
);
export const JobTypeNotAllowed = createError(
  "job_type_not_allowed",
  "This account may only submit job_type=target_validation.",
  403,
);
export const IdempotencyKeyInUse = createError(
  "idempotency_key_in_use",
  "A request with this Idempotency-Key is still being processed; retry after it has finished.",
  409,
);
export const MethodNotAllowed = createError(
  "method_not_allowed",
  "This method is not allowed on this path; the Allow header lists the allowed ones.",
  405,
);
export const PayloadTooLarge = createError("payload_too_large", "%s", 413);
export const UriTooLong = createError(
  "uri_too_long",
  "The request URL is too long: a path parameter exceeds 1024 characters.",
  414,
);
export const ServiceUnavailable = createError(
  "service_unavailable",
  "The service is temporarily unavailable; retry later.",
  503,
);
export const InternalError = createError("internal_error", "Internal server error.", 500);

/** The stable service codes (@fastify/error upper-cases codes; clients see them lower-case). */
export const SERVICE_CODES = new Set([
  "unauthorized",
  "not_found",
  "rate_limited",
  "inflight_limit",
  "external_prediction_quota_exceeded",
  "job_type_not_allowed",
  "idempotency_key_in_use",
  "method_not_allowed",
  "payload_too_large",
  "uri_too_long",
  "service_unavailable",
  "internal_error",
]);

/** One item of the HTTPValidationError body (service-spec §2.15). */
export interface ValidationItem {
  loc: (string | number)[];
  msg: string;
  type: string;
  input?: unknown;
  ctx?: Record<string, unknown>;
}

/** A 422 with an HTTPValidationError body built by hand (multipart fields, business rules). */
export class RequestValidationError extends Error {
  readonly code = "validation_error";
  readonly statusCode = 422;
  readonly items: ValidationItem[];

  constructor(items: ValidationItem[]) {
    super(items.map((i) => `${i.loc.join(".")}: ${i.msg}`).join("; "));
    this.name = "RequestValidationError";
    this.items = items;
  }
}

/** A zod issue as far as the 422 body needs it; fastify-type-provider-zod passes on only these parts. */
export interface IssueLike {
  readonly path: readonly PropertyKey[];
  readonly message: string;
  readonly code: string;
}

/** zod issues → HTTPValidationError items under a location (`["body"]`, `["body", "degs"]`). */
export function zodItems(issues: readonly IssueLike[], loc: readonly (string | number)[]): ValidationItem[] {
  return issues.map((i) => ({
    loc: [...loc, ...i.path.map((p) => (typeof p === "number" ? p : String(p)))],
    msg: i.message,
    type: i.code,
  }));
}

/**
 * The issues of a request-schema validation error of fastify-type-provider-zod: it keeps each
 * issue's path only as a JSON-pointer `instancePath`, whose numeric segments were array indexes.
 */
export function schemaIssues(
  validation: readonly { instancePath: string; message?: string; keyword: string }[],
): IssueLike[] {
  return validation.map((v) => ({
    path: v.instancePath
      .split("/")
      .filter((s) => s !== "")
      .map((s) => (/^\d+$/.test(s) ? Number(s) : s)),
    message: v.message ?? "invalid value",
    code: v.keyword,
  }));
}

/** Shorthand for a single-item 422. */
export function invalid(loc: (string | number)[], msg: string, type = "value_error"): RequestValidationError {
  return new RequestValidationError([{ loc, msg, type }]);
}

/** Errors that carry a Retry-After value. */
export function withRetryAfter<E extends Error>(err: E, seconds: number): E & { retryAfter: number } {
  return Object.assign(err, { retryAfter: seconds });
}
