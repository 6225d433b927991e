/**
 * GET /v1/predictions/{id}/events: Server-Sent Events instead of polling. One request for the
 * limits however long it stays open (the edge limit counts it when it arrives; the per-key rate
 * limit applies to submissions only). Tenancy as the other id routes: another account's
 * prediction is the same 404 as a missing one. A comment line every `heartbeatMs` keeps
 * proxies from closing an idle stream; the stream closes after the terminal event, when the
 * client goes away, and when the server shuts down. `Last-Event-ID` resumes: the current
 * state is sent again, with ids continuing after the client's last one. One API key holds at
 * most `CAUSEWAY_MAX_EVENT_STREAMS_PER_KEY` open streams per server process (429 rate_limited
 * with Retry-After beyond).
 */
import type { FastifyInstance } from "fastify";
import type { ZodTypeProvider } from "fastify-type-provider-zod";
import { z } from "zod";
import type { AppContext } from "../../context.ts";
import { NotFound, TooManyStreams, withRetryAfter } from "../../errors.ts";
import { ErrorBody, PredictionIdParams, commonErrors } from "../../schemas/common.ts";
import { openPredictionEvents, type PredictionEvent } from "../../services/status/prediction-events.ts";

const EventHeaders = z.looseObject({
  "last-event-id": z
    .string()
    .optional()
    .meta({ description: "Resume: the id of the last event received; the current state is sent again." }),
});

const EventStreamResponse = {
  description:
    "text/event-stream: `event: status` (pending/processing changes), then `event: completed` or " +
    "`event: failed`, then the stream closes. Each `data:` is one JSON object " +
    "{prediction_id, status, processing_step, progress_pct, error_code, error_message}, and on the " +
    "terminal event `warnings` [{code, message}] when the job reported any; ids are " +
    "increasing integers; `: heartbeat` comment lines about every 15 s.",
  content: { "text/event-stream": { schema: z.string() } },
};

/** The first id of a stream: after the client's last one when it resumes. */
function firstId(lastEventId: string | undefined): number {
  const n = lastEventId === undefined ? NaN : Number.parseInt(lastEventId, 10);
  return Number.isSafeInteger(n) && n >= 0 ? n + 1 : 1;
}

function frame(id: number, e: PredictionEvent): string {
  return `id: ${id}\nevent: ${e.event}\ndata: ${JSON.stringify(e.data)}\n\n`;
}

export function predictionEventRoutes(app: FastifyInstance, ctx: AppContext): void {
  const r = app.withTypeProvider<ZodTypeProvider>();
  // Open streams end when the server closes: app.close() waits for every open connection.
  const open = new Set<AbortController>();
  // Open streams per API key in this process: each holds a socket and a subscription.
  const perKey = new Map<string, number>();
  const maxPerKey = ctx.config.limits.maxEventStreamsPerKey;
  // The slot is taken before the first await, so concurrent requests cannot all pass the check.
  const reserve = (keyId: string): (() => void) => {
    const held = perKey.get(keyId) ?? 0;
    if (held >= maxPerKey) throw withRetryAfter(new TooManyStreams(), 5);
    perKey.set(keyId, held + 1);
    let released = false;
    return () => {
      if (released) return;
      released = true;
      const left = (perKey.get(keyId) ?? 1) - 1;
      if (left > 0) perKey.set(keyId, left);
      else perKey.delete(keyId);
    };
  };
  app.addHook("preClose", async () => {
    for (const c of open) c.abort();
  });

  r.get(
    "/v1/predictions/:prediction_id/events",
    {
      schema: {
        summary: "Status changes of a prediction, pushed as Server-Sent Events until it ends",
        tags: ["predictions"],
        security: [{ ApiKey: [] }],
        params: PredictionIdParams,
        headers: EventHeaders,
        // 429: the key already holds the most open streams allowed (Retry-After).
        response: { 200: EventStreamResponse, 404: ErrorBody, 429: ErrorBody, ...commonErrors },
      },
    },
    async (request, reply) => {
      const release = reserve(request.account!.apiKeyId);
      const stop = new AbortController();
      let events: Awaited<ReturnType<typeof openPredictionEvents>>;
      try {
        events = await openPredictionEvents(
          ctx,
          request.account!.id,
          request.params.prediction_id,
          stop.signal,
        );
      } catch (err) {
        release();
        throw err;
      }
      if (!events) {
        release();
        throw new NotFound();
      }
      open.add(stop);
      reply.hijack();
      const res = reply.raw;
      res.writeHead(200, {
        "content-type": "text/event-stream; charset=utf-8",
        "cache-control": "no-cache, no-transform",
        connection: "keep-alive",
        // nginx and similar proxies would otherwise buffer the stream.
        "x-accel-buffering": "no",
      });
      res.write("retry: 3000\n\n");
      const heartbeat = setInterval(() => res.write(": heartbeat\n\n"), ctx.events.heartbeatMs);
      res.once("close", () => stop.abort());
      let id = firstId(request.headers["last-event-id"]);
      try {
        for await (const e of events) res.write(frame(id++, e));
      } catch (err) {
        if (!stop.signal.aborted) request.log.warn({ err }, "event stream failed");
      } finally {
        clearInterval(heartbeat);
        open.delete(stop);
        release();
        stop.abort();
        res.end();
      }
    },
  );
}
