/**
 * pino options of the API: JSON lines with the trace id of the active span on every line
 * (request lines get it, with the request id, from the request logger's bindings), secrets
 * redacted, and human-readable output only on a terminal when pino-pretty is installed.
 */
import { createRequire } from "node:module";
import { LogController, type FastifyReply, type FastifyRequest } from "fastify";
import type { LoggerOptions, TransportSingleOptions } from "pino";
import { activeTraceFields } from "@causeway/contract/telemetry";

/**
 * Redacted on top of the app's REDACT_PATHS: credentials a log call might carry as fields
 * (storage keys, database passwords, a runner's derived callback key).
 */
export const EXTRA_REDACT_PATHS = [
  "password",
  "*.password",
  "secretAccessKey",
  "*.secretAccessKey",
  "callbackKey",
  "*.callbackKey",
  "CAUSEWAY_CALLBACK_SECRET",
  "*.CAUSEWAY_CALLBACK_SECRET",
  "CAUSEWAY_CALLBACK_KEY",
  "*.CAUSEWAY_CALLBACK_KEY",
  "AWS_SECRET_ACCESS_KEY",
  "*.AWS_SECRET_ACCESS_KEY",
];

// Loggers whose bindings already hold trace_id (request loggers): the mixin must not repeat it.
const traced = new WeakSet<object>();

/** Marks a logger whose bindings carry trace_id/span_id; returns it. */
export function markTraced<L extends object>(logger: L): L {
  traced.add(logger);
  return logger;
}

/** pino mixin: `trace_id` and `span_id` of the active span, unless the logger is bound to one. */
export function traceMixin(_merge: object, _level: number, logger?: object): Record<string, string> {
  return logger && traced.has(logger) ? {} : activeTraceFields();
}

/** pino-pretty as a transport when `stream` is a terminal and the package is installed. */
export function prettyTransport(
  stream: { isTTY?: boolean } = process.stdout,
): TransportSingleOptions | undefined {
  if (!stream.isTTY) return undefined;
  try {
    createRequire(import.meta.url).resolve("pino-pretty");
  } catch {
    return undefined;
  }
  return { target: "pino-pretty", options: { colorize: true, translateTime: "SYS:standard" } };
}

/** Query parameters whose names say they carry a credential (`api_key`, `token`, `X-Api-Key`, …). */
const SECRET_PARAM = /key|token|secret|passw|auth|sig|credential|session|cookie/i;
/** An API key of this service wherever it is pasted (db/accounts.ts: `cw_` + 43 base64url characters). */
const API_KEY_TEXT = /cw_[A-Za-z0-9_-]{20,}/g;

/**
 * A request's URL as logged: download tokens of `/files/<token>` are bearer credentials, and so
 * is a key a client pasted into the query string: the values of credential-named parameters,
 * and anything shaped like one of our keys, are redacted.
 */
export function loggedUrl(url: string): string {
  const path = url.replace(/^\/files\/[^?#]+/, "/files/[redacted]");
  const q = path.indexOf("?");
  if (q < 0) return path.replace(API_KEY_TEXT, "[redacted]");
  const query = path
    .slice(q + 1)
    .split("&")
    .map((pair) => {
      const eq = pair.indexOf("=");
      if (eq < 0) return pair;
      let name = pair.slice(0, eq);
      try {
        name = decodeURIComponent(name.replace(/\+/g, " "));
      } catch {
        // Not valid percent-encoding: judged as written.
      }
      return SECRET_PARAM.test(name) ? `${pair.slice(0, eq)}=[redacted]` : pair;
    })
    .join("&");
  return `${path.slice(0, q)}?${query}`.replace(API_KEY_TEXT, "[redacted]");
}

interface LoggedRequest {
  method: string;
  url: string;
  host?: string;
  ip?: string;
  socket?: { remotePort?: number };
}

/** Fastify's request serializer, with the URL passed through `loggedUrl`. */
function serializeRequest(req: LoggedRequest): Record<string, unknown> {
  return {
    method: req.method,
    url: loggedUrl(req.url),
    host: req.host,
    remoteAddress: req.ip,
    remotePort: req.socket?.remotePort,
  };
}

/** The API's logger options: level, redaction (app paths + EXTRA_REDACT_PATHS), trace mixin, TTY output. */
export function apiLoggerOptions(
  level: string,
  redactPaths: readonly string[],
  stream: { isTTY?: boolean } = process.stdout,
): LoggerOptions {
  const transport = prettyTransport(stream);
  return {
    level,
    redact: { paths: [...new Set([...redactPaths, ...EXTRA_REDACT_PATHS])], censor: "[redacted]" },
    mixin: traceMixin,
    serializers: { req: serializeRequest },
    ...(transport ? { transport } : {}),
  };
}

/**
 * One access-log line per request, when the response is sent: the request (through the
 * redacting serializer), the status and the response time, under Fastify's usual messages.
 * Fastify's separate "incoming request" line is not written; error lines are unchanged.
 */
export class AccessLogController extends LogController {
  override incomingRequest(): void {}

  override requestCompleted(
    error: Error | null | undefined,
    request: FastifyRequest,
    reply: FastifyReply,
  ): void {
    if (this.isLogDisabled(request)) return;
    if (error) {
      reply.log.error(
        { req: request, res: reply, err: error, responseTime: reply.elapsedTime },
        "request errored",
      );
    } else {
      reply.log.info({ req: request, res: reply, responseTime: reply.elapsedTime }, "request completed");
    }
  }
}
