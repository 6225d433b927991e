/**
 * The embedded mode's executor: runs `node runner/src/main.ts` in child processes with the
 * runner environment of the contract (RUNNER_ENV), at most `concurrency` at a time, the rest
 * queued round-robin across accounts (fair-queue.ts), in submission order within an account. Children report through the HTTP callback route like a Kubernetes Job; the
 * executor only tells the API when a child starts (heartbeat) and when it exits, so a runner
 * that crashed before reporting is failed at once instead of waiting for the stall sweeper.
 */
import { spawn, type ChildProcess } from "node:child_process";
import { CACHE_ENV, RUNNER_ENV, deriveCallbackKey, type JobKind, type JobSpec } from "@causeway/contract";
import { PRELOAD_MODEL_ENV } from "@causeway/contract";
import type { DispatchContext, Dispatcher, MirroredStatus } from "./dispatcher.ts";
import { FairQueue } from "./fair-queue.ts";
import { RunnerPool, type RunnerPoolOptions } from "./runner-pool.ts";
import { stopChild } from "./stop-child.ts";

export interface LocalExecutorOptions {
  concurrency: number;
  /** Path of the runner entry point (runner/src/main.ts). */
  runnerEntry: string;
  /** Node binary; the API's own by default (Node 24, which runs .ts directly). */
  nodePath?: string;
  callbackSecret: string;
  /** Callback URL of a job. */
  callbackUrl: (kind: JobKind, jobId: string) => string;
  /** Storage variables for the child (CAUSEWAY_STORAGE, ...). */
  storageEnv: Record<string, string>;
  /** Extra environment for the child (e.g. CAUSEWAY_CACHE_DIR). */
  extraEnv?: Record<string, string>;
  onStart?: (spec: JobSpec) => void;
  /**
   * A child ended; `code` 0 means it exited normally (it reported by itself). `failureCode` is
   * set when the executor knows why a job ended without its report (a warm runner thread that
   * ran out of its heap: `out_of_memory`).
   */
  onExit?: (
    spec: JobSpec,
    code: number | null,
    signal: NodeJS.Signals | null,
    stderrTail: string,
    failureCode?: "out_of_memory",
  ) => void;
  /** Spawner, injectable for tests. */
  spawnFn?: typeof spawn;
  /**
   * Run jobs on warm, long-lived runner threads of one runner host (runner-pool.ts) instead of
   * one process per job; `preloadModel` is loaded by each thread before its first job.
   */
  pool?: Pick<RunnerPoolOptions, "entry" | "maxJobs" | "heapGrowth" | "jobTimeoutMs" | "idleMs"> & {
    preloadModel?: string;
  };
}

/** The number of a local attempt label (`local-3` → 3); 0 for none or another dispatcher's. */
function attemptNumber(label: string | null | undefined): number {
  const match = /^local-(\d+)$/.exec(label ?? "");
  return match ? Number(match[1]) : 0;
}

// Environment passed through from the API process: no secrets, no database or Redis URLs.
/** NODE_COMPILE_CACHE: runners read the server's type-stripped sources (startup/warm-compile-cache.ts). */
const PASSTHROUGH = [
  "PATH",
  "HOME",
  "TMPDIR",
  "LANG",
  "LC_ALL",
  "TZ",
  CACHE_ENV.runner,
  "NODE_OPTIONS",
  "NODE_COMPILE_CACHE",
];

interface Queued {
  spec: JobSpec;
  traceparent: string | undefined;
}

export class LocalExecutor implements Dispatcher {
  private readonly options: LocalExecutorOptions;
  private readonly queue = new FairQueue<Queued>((q) => q.spec.account_id);
  private readonly running = new Map<string, ChildProcess>();
  private readonly attempts = new Map<string, number>();
  private readonly pooled = new Set<string>();
  private readonly pool: RunnerPool | undefined;
  private closed = false;

  constructor(options: LocalExecutorOptions) {
    this.options = options;
    if (options.pool) {
      const { preloadModel, ...pool } = options.pool;
      const env = this.baseEnv();
      if (preloadModel) env[PRELOAD_MODEL_ENV] = preloadModel;
      this.pool = new RunnerPool({
        ...pool,
        size: options.concurrency,
        nodePath: options.nodePath,
        env,
        onIdle: () => this.pump(),
      });
    }
  }

  async dispatch(spec: JobSpec, ctx: DispatchContext): Promise<void> {
    if (this.closed) throw new Error("executor is shutting down");
    const previous = attemptNumber(ctx.previousAttempt);
    if (previous > 0) this.attempts.set(spec.job_id, previous);
    this.queue.push({ spec, traceparent: ctx.traceparent });
    this.pump();
  }

  async mirrorStatus(_job: { kind: JobKind; job_id: string }, _status: MirroredStatus): Promise<void> {
    // Nothing to mirror locally: PostgreSQL is the only status store.
  }

  /** Jobs waiting and running (tests, diagnostics). */
  stats(): { queued: number; running: number } {
    return { queued: this.queue.length, running: this.running.size + this.pooled.size };
  }

  /** Stops a job: drops it from the queue or kills its process. */
  cancel(jobId: string): void {
    this.queue.remove((q) => q.spec.job_id === jobId);
    this.running.get(jobId)?.kill("SIGTERM");
    if (this.pooled.has(jobId)) this.pool?.kill(jobId);
  }

  /**
   * Starts a warm runner now if the pool has none (a job is on its way, e.g. held while its
   * model version imports); a no-op without a pool.
   */
  prewarm(): void {
    if (!this.closed) this.pool?.prewarm();
  }

  /** Process id of the warm runners' host (diagnostics, benchmarks). */
  poolPids(): number[] {
    return this.pool?.pids() ?? [];
  }

  async close(): Promise<void> {
    this.closed = true;
    this.queue.clear();
    await this.pool?.close();
    await Promise.all([...this.running.values()].map((child) => stopChild(child)));
  }

  private pump(): void {
    if (this.pool) {
      while (!this.closed && this.queue.length > 0 && this.pool.idle) this.startPooled(this.queue.shift()!);
      return;
    }
    while (!this.closed && this.running.size < this.options.concurrency && this.queue.length > 0) {
      const next = this.queue.shift()!;
      this.start(next);
    }
  }

  /** Environment of every runner process: pass-through variables, extra and storage settings. */
  private baseEnv(): Record<string, string> {
    const env: Record<string, string> = {};
    for (const [name, v] of Object.entries(process.env)) {
      // OTEL_* configures the runner's tracing exporter like the API's.
      if (v !== undefined && (PASSTHROUGH.includes(name) || name.startsWith("OTEL_"))) env[name] = v;
    }
    return Object.assign(env, this.options.extraEnv ?? {}, this.options.storageEnv);
  }

  private startPooled({ spec, traceparent }: Queued): void {
    const o = this.options;
    const attempt = (this.attempts.get(spec.job_id) ?? 0) + 1;
    this.attempts.set(spec.job_id, attempt);
    this.pooled.add(spec.job_id);
    o.onStart?.(spec);
    this.pool!.run(
      spec,
      {
        callback_url: o.callbackUrl(spec.kind, spec.job_id),
        callback_key: deriveCallbackKey(o.callbackSecret, spec.job_id),
        attempt: `local-${attempt}`,
        ...(traceparent ? { traceparent } : {}),
      },
      (end) => {
        this.pooled.delete(spec.job_id);
        this.attempts.delete(spec.job_id);
        o.onExit?.(spec, end.code, end.signal, end.stderrTail, end.outOfMemory ? "out_of_memory" : undefined);
        this.pump();
      },
    );
  }

  private start({ spec, traceparent }: Queued): void {
    const o = this.options;
    const attempt = (this.attempts.get(spec.job_id) ?? 0) + 1;
    this.attempts.set(spec.job_id, attempt);
    const env = this.baseEnv();
    Object.assign(env, {
      [RUNNER_ENV.jobSpec]: JSON.stringify(spec),
      [RUNNER_ENV.callbackUrl]: o.callbackUrl(spec.kind, spec.job_id),
      [RUNNER_ENV.callbackKey]: deriveCallbackKey(o.callbackSecret, spec.job_id),
      [RUNNER_ENV.attempt]: `local-${attempt}`,
    });
    if (traceparent) env.TRACEPARENT = traceparent;
    let stderrTail = "";
    let child: ChildProcess;
    try {
      child = (o.spawnFn ?? spawn)(o.nodePath ?? process.execPath, [o.runnerEntry], {
        env,
        stdio: ["ignore", "ignore", "pipe"],
      });
    } catch (err) {
      o.onExit?.(spec, null, null, err instanceof Error ? err.message : String(err));
      this.pump();
      return;
    }
    this.running.set(spec.job_id, child);
    o.onStart?.(spec);
    child.stderr?.on("data", (chunk: Buffer) => {
      // Keep the last 4 KiB for the failure detail of a crashed runner.
      stderrTail = (stderrTail + chunk.toString("utf8")).slice(-4096);
    });
    let finished = false;
    const finish = (code: number | null, signal: NodeJS.Signals | null) => {
      if (finished) return;
      finished = true;
      this.running.delete(spec.job_id);
      this.attempts.delete(spec.job_id);
      o.onExit?.(spec, code, signal, stderrTail);
      this.pump();
    };
    child.once("error", (err) => {
      stderrTail += err.message;
      finish(null, null);
    });
    child.once("close", (code, signal) => finish(code, signal));
  }
}
