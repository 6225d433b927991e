/**
 * One full garbage collection once the API has answered nothing for a while.
 *
 * Why: V8 sizes the young generation for throughput and shrinks it only when a collection runs
 * with a low allocation rate. A server that goes quiet allocates nothing, so no collection runs:
 * it keeps what its last burst grew, and the buffers it let go of (the status bodies the cache
 * dropped) stay allocated. One collection returns most of it in tens of milliseconds
 * (api/docs/memory.md has the figures).
 *
 * The collection waits for `idleMs` without a request starting or ending, so it never delays a
 * request in a busy period. Probes (`/health`, `/livez`, `/readyz`) do not count as activity, or
 * a kubelet's probes would keep it from ever running.
 */
import { setFlagsFromString } from "node:v8";
import { runInNewContext } from "node:vm";
import type { FastifyInstance } from "fastify";
import { BODY_IDLE_MS } from "../services/status-documents.ts";

const PROBES = new Set(["/health", "/livez", "/readyz"]);

/** V8's collector, made callable without starting the process with --expose-gc. */
export function fullGc(): () => void {
  setFlagsFromString("--expose-gc");
  return runInNewContext("gc") as () => void;
}

/**
 * Quiet time before the collection: once the status bodies of the last jobs have left the cache
 * (unread for BODY_IDLE_MS, dropped by a sweep every half of that), so that their memory goes too.
 */
export const IDLE_GC_MS = 1.5 * BODY_IDLE_MS + 5_000;

export interface IdleGcOptions {
  idleMs?: number;
  /** The collection (tests count calls); V8's full collection by default. */
  collect?: () => void;
}

export function registerIdleGc(app: FastifyInstance, options: IdleGcOptions = {}): void {
  const collect = options.collect ?? fullGc();
  // refresh() re-arms a timer that has fired: a quiet server collects once, not every idleMs.
  const timer = setTimeout(collect, options.idleMs ?? IDLE_GC_MS).unref();
  const active = (url: string): void => {
    if (!PROBES.has(url.split("?", 1)[0]!)) timer.refresh();
  };
  // Both ends of a request: a long upload or stream is activity from its start.
  app.addHook("onRequest", async (req) => active(req.url));
  app.addHook("onResponse", async (req) => active(req.url));
  app.addHook("onClose", async () => clearTimeout(timer));
}
