/**
 * Errors Fastify raises before it has a route (Fastify's `frameworkErrors`): a path parameter
 * longer than `maxParamLength` (414) and a path that is not valid percent-encoding. Fastify
 * would answer them itself, before every hook, with its own body that echoes the URL and
 * without counting them against the edge limit. Here they are counted like any request and
 * answered in the service's error shape: 414 `uri_too_long`, and the bad URL as a 422 on the path.
 */
import type { FastifyError, FastifyReply, FastifyRequest } from "fastify";
import type { AppContext } from "../context.ts";
import { UriTooLong } from "../errors.ts";
import { edgeAllowsRequest, sendEdgeBlock } from "./edge-limit.ts";

export function frameworkErrorHandler(ctx: AppContext) {
  return (error: FastifyError, request: FastifyRequest, reply: FastifyReply): void => {
    void answer(ctx, error, request, reply).catch((err: unknown) => {
      request.log.error({ err }, "framework error handler failed");
      if (!reply.sent) void reply.code(500).send({ detail: "Internal server error." });
    });
  };
}

async function answer(
  ctx: AppContext,
  error: FastifyError,
  request: FastifyRequest,
  reply: FastifyReply,
): Promise<void> {
  if (!(await edgeAllowsRequest(ctx, request))) {
    sendEdgeBlock(reply);
    return;
  }
  if (error.code === "FST_ERR_MAX_PARAM_LENGTH") {
    const err = new UriTooLong();
    void reply.code(414).header("x-service-error-code", "uri_too_long").send({ detail: err.message });
    return;
  }
  if (error.code === "FST_ERR_BAD_URL") {
    void reply
      .code(422)
      .header("x-service-error-code", "validation_error")
      .send({
        detail: [{ loc: ["path"], msg: "the path is not valid percent-encoding", type: "url_invalid" }],
      });
    return;
  }
  void reply.code(400).header("x-service-error-code", "bad_request").send({ detail: "Bad request." });
}
