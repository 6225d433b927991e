/**
 * The warm runner pool of the embedded executor: up to one long-lived runner process per
 * concurrency slot (runner/src/jobs/pool-worker.ts), with the model version loaded, each running
 * one job at a time. The pool is demand-driven: it starts no process until a job asks for a
 * slot (or `prewarm` says one is on its way), adds a process only when a job waits and every
 * process is busy, and lets every process go after `idleMs` without a job. An idle server therefore holds no runner at all, and a
 * single user's jobs one at a time hold one (each warm runner keeps its own copy of the
 * influence matrix, ~110 MB, and ~400 MB in all; see the API README on memory). A process is replaced after `maxJobs` jobs or when its resident memory
 * after a job exceeds `rssGrowth` times what it was after its first job (a leak must not grow
 * forever); a job that runs past `jobTimeoutMs` is ended by killing its process. A process that
 * dies fails only the job it was running; a fresh one takes its slot.
 */
import { fork, type ChildProcess } from "node:child_process";
import type { JobSpec } from "@causeway/contract";
import type { RunMessage, WorkerMessage } from "@causeway/contract";

/**
 * V8 heap settings of a warm runner. A job allocates most of its garbage in short bursts (DE,
 * scoring, the PNG); with V8's defaults, sized for a short process's throughput, each burst
 * leaves the heap's committed pages larger and a long-lived process drifts to ~600 MB. Small
 * semi-spaces and an old-space ceiling make V8 collect sooner and keep a warm runner under
 * ~400 MB at a few percent of job time (measured on the Kang split job; `npm run bench service`).
 * The ceiling is generous for the heap itself: expression matrices and the influence matrix are
 * typed arrays outside it.
 */
export const WARM_RUNNER_FLAGS = ["--max-semi-space-size=2", "--max-old-space-size=512"];

/**
 * glibc malloc settings of a warm runner (the caller's environment wins):
 * - glibc gives each thread that allocates its own malloc arena (up to 8 per core); native
 *   libraries (canvas, zlib, h5wasm's host calls) free into them and the pages stay resident.
 *   Two arenas cut a warm runner's resident set by ~25 MB at no measurable cost in job time.
 * - A fixed mmap threshold: by default glibc raises the threshold to the size of every large
 *   block it frees (up to 32 MB), so after the first job a job's buffers come from the arenas,
 *   whose freed pages stay resident between jobs. At 128 KiB every large buffer is its own
 *   mapping, returned to the system when freed.
 */
export const WARM_RUNNER_ENV: Record<string, string> = {
  MALLOC_ARENA_MAX: "2",
  MALLOC_MMAP_THRESHOLD_: "131072",
};

export interface RunnerPoolOptions {
  size: number;
  /** Path of runner/src/jobs/pool-worker.ts. */
  entry: string;
  nodePath?: string;
  env: Record<string, string>;
  maxJobs: number;
  rssGrowth: number;
  jobTimeoutMs: number;
  /** A slot became free (a job ended or a fresh process took a slot). */
  onIdle: () => void;
  /** Processes exit after this long without a job (the pool starts again on the next job). */
  idleMs?: number;
}

/** How a job ended, in the terms of a child process exit (LocalExecutorOptions.onExit). */
export interface JobEnd {
  code: number | null;
  signal: NodeJS.Signals | null;
  stderrTail: string;
}

interface Slot {
  child: ChildProcess;
  ready: Promise<boolean>;
  jobs: number;
  baselineRss: number | null;
  job: { spec: JobSpec; done: (end: JobEnd) => void; timer: NodeJS.Timeout } | null;
  stderrTail: string;
  retiring: boolean;
  /** Stopped for idleness: not replaced. */
  shrinking: boolean;
}

export class RunnerPool {
  private readonly o: RunnerPoolOptions;
  private readonly slots = new Set<Slot>();
  private closed = false;
  private idleTimer: NodeJS.Timeout | undefined;

  constructor(options: RunnerPoolOptions) {
    this.o = options;
  }

  /**
   * Whether a slot is free for a job. Asked when a job waits, so a pool with no free slot and
   * room to grow starts a process now (it takes the job as soon as it is warm).
   */
  get idle(): boolean {
    const free = () => [...this.slots].some((s) => s.job === null && !s.retiring);
    // A retiring process holds its place until it has exited (its replacement follows then).
    if (!free() && !this.closed && this.slots.size < this.o.size) this.spawn();
    return free();
  }

  /**
   * Runs a job on a free slot; `onEnd` is called once, when the job's process said it is
   * done or died. Throws when no slot is free (callers check `idle`).
   */
  run(spec: JobSpec, message: Omit<RunMessage, "type" | "spec">, onEnd: (end: JobEnd) => void): void {
    const slot = [...this.slots].find((s) => s.job === null && !s.retiring);
    if (!slot) throw new Error("no idle runner");
    slot.stderrTail = "";
    const timer = setTimeout(() => {
      slot.stderrTail += `\njob exceeded ${this.o.jobTimeoutMs} ms; runner stopped`;
      slot.child.kill("SIGKILL");
    }, this.o.jobTimeoutMs);
    timer.unref();
    slot.job = { spec, done: onEnd, timer };
    clearTimeout(this.idleTimer);
    void slot.ready.then((ok) => {
      if (ok && slot.job?.spec === spec)
        slot.child.send({ type: "run", spec, ...message } satisfies RunMessage);
    });
  }

  /** Starts one process if there is none, so the next job finds it warm (or warming). */
  prewarm(): void {
    if (this.slots.size === 0 && !this.closed) {
      this.spawn();
      // A warm process with no job still goes after the idle period.
      this.scheduleShrink();
    }
  }

  /** Ends a running job by stopping its process (cancellation, stalls). */
  kill(jobId: string): void {
    for (const s of this.slots) if (s.job?.spec.job_id === jobId) s.child.kill("SIGTERM");
  }

  /** Process ids of the pool (diagnostics, benchmarks). */
  pids(): number[] {
    return [...this.slots].flatMap((s) => (s.child.pid === undefined ? [] : [s.child.pid]));
  }

  async close(): Promise<void> {
    this.closed = true;
    clearTimeout(this.idleTimer);
    await Promise.all(
      [...this.slots].map(
        (s) =>
          new Promise<void>((resolve) => {
            if (s.child.exitCode !== null || s.child.signalCode !== null) return resolve();
            const timer = setTimeout(() => {
              s.child.kill("SIGKILL");
              resolve();
            }, 5000);
            s.child.once("exit", () => {
              clearTimeout(timer);
              resolve();
            });
            s.child.kill("SIGTERM");
          }),
      ),
    );
  }

  private spawn(): void {
    if (this.closed) return;
    const child = fork(this.o.entry, [], {
      execPath: this.o.nodePath ?? process.execPath,
      execArgv: WARM_RUNNER_FLAGS,
      env: { ...WARM_RUNNER_ENV, ...this.o.env },
      stdio: ["ignore", "ignore", "pipe", "ipc"],
      serialization: "json",
    });
    let markReady: (ok: boolean) => void = () => {};
    const slot: Slot = {
      child,
      ready: new Promise<boolean>((resolve) => (markReady = resolve)),
      jobs: 0,
      baselineRss: null,
      job: null,
      stderrTail: "",
      retiring: false,
      shrinking: false,
    };
    this.slots.add(slot);
    queueMicrotask(() => this.o.onIdle());
    child.stderr?.on("data", (chunk: Buffer) => {
      // The last 4 KiB of the current job, for the failure detail of a crashed runner.
      slot.stderrTail = (slot.stderrTail + chunk.toString("utf8")).slice(-4096);
    });
    child.on("message", (m: WorkerMessage) => {
      if (m.type === "ready") return markReady(true);
      const job = slot.job;
      if (!job || job.spec.job_id !== m.job_id) return;
      clearTimeout(job.timer);
      slot.job = null;
      slot.jobs++;
      slot.baselineRss ??= m.rss;
      if (slot.jobs >= this.o.maxJobs || m.rss > slot.baselineRss * this.o.rssGrowth) this.retire(slot);
      job.done({ code: m.exit_code, signal: null, stderrTail: slot.stderrTail });
      this.o.onIdle();
      this.scheduleShrink();
    });
    let started = false;
    void slot.ready.then((ok) => (started = ok));
    const gone = (code: number | null, signal: NodeJS.Signals | null) => {
      if (!this.slots.has(slot)) return;
      this.slots.delete(slot);
      markReady(false);
      const job = slot.job;
      slot.job = null;
      if (job) {
        clearTimeout(job.timer);
        job.done({ code, signal, stderrTail: slot.stderrTail });
      }
      // A recycled or crashed warm process is replaced at once (the next job finds it warm);
      // one that never started is left to the next job's demand, so a broken installation does
      // not spin, and one stopped for idleness stays stopped.
      if (started && !slot.shrinking) this.spawn();
      else if (!started && !this.closed) setTimeout(() => this.o.onIdle(), 1000).unref();
      this.scheduleShrink();
    };
    child.once("error", (err) => {
      slot.stderrTail += err.message;
      gone(null, null);
    });
    child.once("exit", gone);
  }

  /** After `idleMs` with no job on any process, every process exits. */
  private scheduleShrink(): void {
    clearTimeout(this.idleTimer);
    if (this.o.idleMs === undefined || [...this.slots].some((s) => s.job !== null)) return;
    this.idleTimer = setTimeout(() => {
      if ([...this.slots].some((s) => s.job !== null)) return;
      for (const slot of this.slots) {
        slot.shrinking = true;
        this.retire(slot);
      }
    }, this.o.idleMs);
    this.idleTimer.unref();
  }

  private retire(slot: Slot): void {
    slot.retiring = true;
    // The replacement starts warming while this one exits.
    slot.child.kill("SIGTERM");
  }
}
