/**
 * The single error handler: stable codes to HTTP status and `X-Service-Error-Code`, zod and
 * Fastify validation failures to the 422 HTTPValidationError body, generic 5xx bodies. No
 * stack trace, storage path or key ever reaches a response.
 */
import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from "fastify";
import { hasZodFastifySchemaValidationErrors } from "fastify-type-provider-zod";
import { DatabaseUnavailable } from "../db/database.ts";
import {
  MethodNotAllowed,
  RequestValidationError,
  SERVICE_CODES,
  schemaIssues,
  zodItems,
  type ValidationItem,
} from "../errors.ts";
import { RouteMethods } from "./route-methods.ts";
import { LimitStoreUnavailable } from "../limits/limit-store.ts";
import { StorageUnavailable } from "../services/status/artifacts.ts";

const LOC_PREFIX: Record<string, string> = {
  querystring: "query",
  params: "path",
  body: "body",
  headers: "header",
};

function sendValidation(reply: FastifyReply, items: ValidationItem[]): FastifyReply {
  return reply.code(422).header("x-service-error-code", "validation_error").send({ detail: items });
}

// Fastify's own request errors that are validation failures in the contract's sense (§7).
const FASTIFY_VALIDATION: Record<string, { loc: string[]; type: string; msg: string }> = {
  FST_ERR_CTP_EMPTY_JSON_BODY: {
    loc: ["body"],
    type: "missing",
    msg: "Body cannot be empty when content-type is application/json",
  },
  FST_ERR_CTP_INVALID_MEDIA_TYPE: {
    loc: ["header", "content-type"],
    type: "content_type",
    msg: "Unsupported media type",
  },
  FST_ERR_CTP_INVALID_CONTENT_LENGTH: {
    loc: ["header", "content-length"],
    type: "value_error",
    msg: "Invalid content length",
  },
  FST_INVALID_MULTIPART_CONTENT_TYPE: {
    loc: ["body"],
    type: "content_type",
    msg: "the request is not multipart/form-data",
  },
  FST_PROTO_VIOLATION: { loc: ["body"], type: "value_error", msg: "invalid multipart field name" },
};

/** The value at a validation path of the request part, or undefined when it is absent. */
function valueAt(request: FastifyRequest, context: string, path: readonly PropertyKey[]): unknown {
  const parts: Record<string, unknown> = {
    querystring: request.query,
    params: request.params,
    body: request.body,
    headers: request.headers,
  };
  let value: unknown = parts[context];
  for (const key of path) {
    if (value === null || typeof value !== "object") return undefined;
    value = (value as Record<PropertyKey, unknown>)[key];
  }
  return value;
}

/** 405 with Allow for a path that exists under other methods (RFC 9110 §15.5.6). */
function sendMethodNotAllowed(reply: FastifyReply, allow: string[]): FastifyReply {
  const err = new MethodNotAllowed();
  return reply
    .code(405)
    .header("allow", allow.join(", "))
    .header("x-service-error-code", "method_not_allowed")
    .send({ detail: err.message });
}

export function registerErrorHandler(app: FastifyInstance): void {
  const routes = new RouteMethods();
  app.addHook("onRoute", (route) => routes.add(route.url, route.method));

  app.setErrorHandler((error: FastifyError, request, reply) => {
    // Fastify refuses some requests (QUERY without a content type, for one) before it looks for
    // a route: on a path that exists under other methods, the answer is still 405.
    if (request.is404) {
      const allow = routes.allowed(request.url);
      if (allow.length > 0 && !allow.includes(request.method)) return sendMethodNotAllowed(reply, allow);
    }
    if (error instanceof RequestValidationError) return sendValidation(reply, error.items);
    if (hasZodFastifySchemaValidationErrors(error)) {
      const context = error.validationContext ?? "body";
      const where = LOC_PREFIX[context] ?? "body";
      // zod coerces an absent query parameter to NaN and says so; the contract's word is "required".
      const issues = schemaIssues(error.validation).map((issue) =>
        issue.path.length > 0 && valueAt(request, context, issue.path) === undefined
          ? { ...issue, message: "Field required", code: "missing" }
          : issue,
      );
      return sendValidation(reply, zodItems(issues, [where]));
    }
    if (error instanceof SyntaxError || error.code === "FST_ERR_CTP_INVALID_JSON_BODY") {
      return sendValidation(reply, [{ loc: ["body"], msg: "JSON decode error", type: "json_invalid" }]);
    }
    const fv = error.code ? FASTIFY_VALIDATION[error.code] : undefined;
    if (fv) return sendValidation(reply, [{ loc: fv.loc, msg: fv.msg, type: fv.type }]);

    const code = error.code ? error.code.toLowerCase() : "";
    const ours = SERVICE_CODES.has(code);
    if (
      code === "fst_err_ctp_body_too_large" ||
      code === "fst_req_file_too_large" ||
      error.statusCode === 413
    ) {
      const detail =
        code === "payload_too_large" ? error.message : "The request body or an uploaded file is too large.";
      return reply.code(413).header("x-service-error-code", "payload_too_large").send({ detail });
    }
    if (
      error instanceof DatabaseUnavailable ||
      error instanceof LimitStoreUnavailable ||
      error instanceof StorageUnavailable ||
      code === "service_unavailable"
    ) {
      request.log.warn({ err: error }, "dependency unavailable");
      return reply
        .code(503)
        .header("x-service-error-code", "service_unavailable")
        .header("retry-after", "5")
        .send({ detail: "The service is temporarily unavailable; retry later." });
    }
    const status = error.statusCode ?? 500;
    if (status >= 500 || !ours) {
      if (status >= 400 && status < 500) {
        // A client-side protocol error from Fastify or a plugin: keep the status, not the message.
        return reply
          .code(status)
          .header("x-service-error-code", "bad_request")
          .send({ detail: "Bad request." });
      }
      request.log.error({ err: error }, "unhandled error");
      return reply
        .code(500)
        .header("x-service-error-code", "internal_error")
        .send({ detail: "Internal server error." });
    }
    const retryAfter = (error as { retryAfter?: unknown }).retryAfter;
    if (typeof retryAfter === "number") reply.header("retry-after", String(retryAfter));
    return reply.code(status).header("x-service-error-code", code).send({ detail: error.message });
  });

  app.setNotFoundHandler((request, reply) => {
    // A path whose route takes this method but found nothing (a missing file under a static
    // prefix) is a 404, not a 405.
    const allow = routes.allowed(request.url);
    if (allow.length > 0 && !allow.includes(request.method)) return sendMethodNotAllowed(reply, allow);
    return reply.code(404).header("x-service-error-code", "not_found").send({ detail: "Not found." });
  });
}
