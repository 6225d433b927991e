/**
 * Job status changes as they are applied (callbacks, API-side failures), for push delivery (the
 * SSE route). In process an EventEmitter keyed by job id; with Redis (production, several API
 * replicas) every change is also published on one channel and re-emitted by the other replicas,
 * so a stream on replica A sees a callback applied on replica B. Delivery is best effort: a
 * stream that misses a change still ends right, because every stream starts from, and every
 * resume re-reads, the state in PostgreSQL.
 */
import { EventEmitter, on } from "node:events";
import { randomUUID } from "node:crypto";
import type { FastifyBaseLogger } from "fastify";
import { Redis } from "ioredis";
import { z } from "zod";
import type { JobKind } from "@causeway/contract";

export const JobChange = z.object({
  kind: z.enum(["prediction", "causal_analysis"]),
  job_id: z.string(),
  account_id: z.string(),
  status: z.enum(["pending", "processing", "completed", "failed"]),
  processing_step: z.string().nullable(),
  progress_pct: z.number().nullable(),
  error_code: z.string().nullable(),
  error_message: z.string().nullable(),
});
export type JobChange = z.infer<typeof JobChange>;

/** What the job service hands over after a transition (db/jobs.ts TransitionResult). */
export interface AppliedState {
  id: string;
  account_id: string;
  status: JobChange["status"];
  processing_step: string | null;
  progress_pct: number | null;
  error_code: string | null;
  error_message: string | null;
}

export const JOB_EVENTS_CHANNEL = "causeway:job-events";

const Envelope = z.object({ origin: z.string(), change: JobChange });

export interface JobEventsOptions {
  /** Redis for cross-replica fan-out; none in embedded mode. */
  redisUrl?: string;
  /** How often an open stream sends a comment line, so proxies keep it open. */
  heartbeatMs?: number;
  log: FastifyBaseLogger;
}

export class JobEvents {
  readonly heartbeatMs: number;
  private readonly emitter = new EventEmitter();
  private readonly origin = randomUUID();
  private readonly log: FastifyBaseLogger;
  private readonly pub: Redis | null;
  private readonly sub: Redis | null;
  private readonly ready: Promise<void>;

  constructor(options: JobEventsOptions) {
    this.heartbeatMs = options.heartbeatMs ?? 15_000;
    this.log = options.log;
    // Every open stream listens on its job: no listener cap.
    this.emitter.setMaxListeners(0);
    if (!options.redisUrl) {
      this.pub = null;
      this.sub = null;
      this.ready = Promise.resolve();
      return;
    }
    const redisOptions = { maxRetriesPerRequest: 1, commandTimeout: 1000 };
    this.pub = new Redis(options.redisUrl, { ...redisOptions, enableOfflineQueue: false });
    // A subscriber connection is in subscribe mode for good; ioredis re-subscribes on reconnect.
    this.sub = new Redis(options.redisUrl, redisOptions);
    for (const r of [this.pub, this.sub]) r.on("error", () => {});
    this.sub.on("message", (_channel: string, message: string) => this.receive(message));
    this.ready = this.sub.subscribe(JOB_EVENTS_CHANNEL).then(
      () => undefined,
      (err: unknown) => this.log.warn({ err }, "job events: Redis subscription failed; local events only"),
    );
  }

  /** Resolves once the cross-replica subscription is in place (or has failed and was logged). */
  whenReady(): Promise<void> {
    return this.ready;
  }

  /** Announces an applied state: to this process at once, to the other replicas through Redis. */
  publish(kind: JobKind, state: AppliedState): void {
    const change: JobChange = {
      kind,
      job_id: state.id,
      account_id: state.account_id,
      status: state.status,
      processing_step: state.processing_step,
      progress_pct: state.progress_pct,
      error_code: state.error_code,
      error_message: state.error_message,
    };
    this.emitter.emit(change.job_id, change);
    if (!this.pub) return;
    this.pub
      .publish(JOB_EVENTS_CHANNEL, JSON.stringify({ origin: this.origin, change }))
      .catch((err: unknown) => this.log.warn({ err }, "job events: Redis publish failed"));
  }

  /**
   * Every change of `jobId` from this call on (listening starts at once, not at the first read),
   * buffered until read, each as a one-element tuple; the iteration stops with an AbortError
   * when `signal` aborts, which also removes the listener.
   */
  changes(jobId: string, signal: AbortSignal): AsyncIterableIterator<[JobChange]> {
    return on(this.emitter, jobId, { signal }) as AsyncIterableIterator<[JobChange]>;
  }

  /** How many streams listen on `jobId` (a closed stream must leave none behind). */
  listeners(jobId: string): number {
    return this.emitter.listenerCount(jobId);
  }

  private receive(message: string): void {
    let parsed: z.infer<typeof Envelope>;
    try {
      parsed = Envelope.parse(JSON.parse(message));
    } catch (err) {
      this.log.warn({ err }, "job events: malformed message ignored");
      return;
    }
    // This replica emitted its own changes when it published them.
    if (parsed.origin === this.origin) return;
    this.emitter.emit(parsed.change.job_id, parsed.change);
  }

  async close(): Promise<void> {
    this.emitter.removeAllListeners();
    await Promise.all(
      [this.pub, this.sub].map((r) =>
        r
          ? r.quit().then(
              () => undefined,
              () => r.disconnect(),
            )
          : undefined,
      ),
    );
  }
}
