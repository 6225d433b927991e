/**
 * Requests Node's HTTP parser refuses before Fastify sees them (the server's `clientError`
 * event): a NUL, a bare CR or an obs-fold in a header, a malformed request line, headers over
 * the size limit, a request that took too long. They are answered in the service's error shape
 * (JSON `{detail}` and `X-Service-Error-Code`) like every other refusal, then the connection is
 * closed: after a parse error the rest of the stream cannot be trusted to frame a request.
 */
import { STATUS_CODES } from "node:http";
import type { Socket } from "node:net";
import type { FastifyInstance } from "fastify";

interface Answer {
  status: number;
  code: string;
  detail: string;
}

/** The answer to a parser error (`err.code` of Node's HTTP parser or server). */
export function clientErrorAnswer(errCode: string | undefined): Answer {
  switch (errCode) {
    case "HPE_HEADER_OVERFLOW":
      return {
        status: 431,
        code: "request_header_fields_too_large",
        detail: "The request headers are too large.",
      };
    case "ERR_HTTP_REQUEST_TIMEOUT":
    case "ERR_HTTP_HEADERS_TIMEOUT":
      return { status: 408, code: "request_timeout", detail: "The request took too long to arrive." };
    default:
      return {
        status: 400,
        code: "bad_request",
        detail:
          "The request is not valid HTTP/1.1: a header holds a character that is not allowed " +
          "(NUL, CR or a folded line) or the request line is malformed.",
      };
  }
}

/** The raw HTTP response of {@link clientErrorAnswer}. */
export function clientErrorResponse(errCode: string | undefined): string {
  const a = clientErrorAnswer(errCode);
  const body = JSON.stringify({ detail: a.detail });
  return (
    `HTTP/1.1 ${a.status} ${STATUS_CODES[a.status] ?? "Error"}\r\n` +
    `Content-Type: application/json; charset=utf-8\r\n` +
    `Content-Length: ${Buffer.byteLength(body)}\r\n` +
    `X-Service-Error-Code: ${a.code}\r\n` +
    `X-Content-Type-Options: nosniff\r\n` +
    `Connection: close\r\n\r\n${body}`
  );
}

/** Fastify's `clientErrorHandler` option (`this` is the Fastify instance). */
export function clientErrorHandler(
  this: FastifyInstance,
  err: Error & { code?: string },
  socket: Socket,
): void {
  // A reset connection has no one left to answer.
  if (err.code === "ECONNRESET" || socket.destroyed) return;
  this.log.debug({ code: err.code }, "client error");
  if (socket.writable) socket.end(clientErrorResponse(err.code));
  socket.destroySoon();
}
