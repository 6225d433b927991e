/**
 * The warm runner pool of the embedded executor: one runner host process
 * (runner/src/jobs/pool-host.ts) whose worker threads are the pool's slots, one per concurrency
 * slot at most, each running one job at a time with the model version warm. The host holds one
 * read-only copy of each model version's large arrays, shared by its threads, so a second busy
 * slot costs a thread's heap, not a second ~110 MB influence matrix. Jobs never run in the API
 * process: a native crash or an out-of-memory of a job ends the host at worst.
 *
 * The pool is demand-driven: it starts no host until a job asks for a slot (or `prewarm` says one
 * is on its way), adds a thread only when a job waits and every thread is busy, and lets every
 * thread and then the host go after `idleMs` without a job. A thread is replaced after `maxJobs`
 * jobs or when its V8 heap after a job exceeds `heapGrowth` times what it was after its first
 * job (a leak must not grow forever); a job that runs past `jobTimeoutMs`, or is cancelled, is
 * ended by terminating its thread. A thread that dies fails only the job it was running and a
 * fresh one takes its slot; the host dying fails the jobs it was running, and the next job
 * starts a fresh host.
 */
import { fork, type ChildProcess } from "node:child_process";
import type { HostMessage, JobSpec, RunMessage, WorkerMessage } from "@causeway/contract";
import { stopChild } from "./stop-child.ts";

/**
 * V8 heap settings of the runner host process. A job allocates most of its garbage in short
 * bursts (DE, scoring, the PNG); with V8's defaults, sized for a short process's throughput, each
 * burst leaves the heap's committed pages larger and a long-lived runner drifts upwards. Small
 * semi-spaces and an old-space ceiling make V8 collect sooner at a few percent of job time
 * (`npm run bench service`). The host's threads get the same
 * limits as resource limits (THREAD_LIMITS in runner/src/jobs/thread-host.ts).
 */
export const WARM_RUNNER_FLAGS = ["--max-semi-space-size=2", "--max-old-space-size=512"];

/**
 * glibc malloc settings of the runner host (the caller's environment wins):
 * - glibc gives each thread that allocates its own malloc arena (up to 8 per core); native
 *   libraries (canvas, zlib, h5wasm's host calls) free into them and the pages stay resident.
 *   Two arenas cut a warm runner's resident set at no measurable cost in job time.
 * - A fixed mmap threshold: by default glibc raises the threshold to the size of every large
 *   block it frees (up to 32 MB), so after the first job a job's buffers come from the arenas,
 *   whose freed pages stay resident between jobs (glibc hands back only the top of an arena).
 *   At 32 KiB every buffer from there up is its own mapping, returned to the system when freed,
 *   with job times within the runs' spread (api/docs/memory.md, `npm run bench service`).
 */
export const WARM_RUNNER_ENV: Record<string, string> = {
  MALLOC_ARENA_MAX: "2",
  MALLOC_MMAP_THRESHOLD_: "32768",
};

export interface RunnerPoolOptions {
  size: number;
  /** Path of runner/src/jobs/pool-host.ts. */
  entry: string;
  nodePath?: string;
  env: Record<string, string>;
  maxJobs: number;
  heapGrowth: number;
  jobTimeoutMs: number;
  /** A slot became free (a job ended or a fresh thread took a slot). */
  onIdle: () => void;
  /** Threads, then the host, exit after this long without a job (the pool starts again on the next job). */
  idleMs?: number;
}

/** How a job ended, in the terms of a child process exit (LocalExecutorOptions.onExit). */
export interface JobEnd {
  code: number | null;
  signal: NodeJS.Signals | null;
  stderrTail: string;
  /** The job's thread hit its heap limit. */
  outOfMemory?: boolean;
}

interface Host {
  child: ChildProcess;
  /** The host listens for slots (it said "up"); false when it ended first. */
  up: Promise<boolean>;
  stderrTail: string;
}

interface Slot {
  id: number;
  host: Host;
  ready: Promise<boolean>;
  markReady: (ok: boolean) => void;
  started: boolean;
  jobs: number;
  baselineHeap: number | null;
  job: { spec: JobSpec; done: (end: JobEnd) => void; timer: NodeJS.Timeout } | null;
  stderrTail: string;
  retiring: boolean;
  /** Stopped for idleness: not replaced. */
  shrinking: boolean;
  /**
   * Why the pool ended the thread's job, as the signal that ended a one-shot runner for the same
   * reason (a terminated thread itself exits with code 0 or 1): SIGKILL for a timeout, SIGTERM
   * for a cancellation.
   */
  stoppedBy: NodeJS.Signals | null;
}

export class RunnerPool {
  private readonly o: RunnerPoolOptions;
  private readonly slots = new Map<number, Slot>();
  private host: Host | null = null;
  private nextSlot = 0;
  private closed = false;
  private idleTimer: NodeJS.Timeout | undefined;

  constructor(options: RunnerPoolOptions) {
    this.o = options;
  }

  /**
   * Whether a slot is free for a job. Asked when a job waits, so a pool with no free slot and
   * room to grow starts a thread now (it takes the job as soon as it is warm).
   */
  get idle(): boolean {
    const free = () => [...this.slots.values()].some((s) => s.job === null && !s.retiring);
    // A retiring thread holds its place until it has exited (its replacement follows then).
    if (!free() && !this.closed && this.slots.size < this.o.size) this.spawn();
    return free();
  }

  /**
   * Runs a job on a free slot; `onEnd` is called once, when the job's thread said it is done or
   * ended. Throws when no slot is free (callers check `idle`).
   */
  run(spec: JobSpec, message: Omit<RunMessage, "type" | "spec">, onEnd: (end: JobEnd) => void): void {
    const slot = [...this.slots.values()].find((s) => s.job === null && !s.retiring);
    if (!slot) throw new Error("no idle runner");
    slot.stderrTail = "";
    const timer = setTimeout(() => {
      slot.stderrTail += `\njob exceeded ${this.o.jobTimeoutMs} ms; runner stopped`;
      this.stop(slot, "SIGKILL");
    }, this.o.jobTimeoutMs);
    timer.unref();
    slot.job = { spec, done: onEnd, timer };
    clearTimeout(this.idleTimer);
    void slot.ready.then((ok) => {
      if (ok && slot.job?.spec === spec)
        this.send(slot.host, { type: "run", slot: slot.id, spec, ...message });
    });
  }

  /** Starts one thread (and the host) if there is none, so the next job finds it warm (or warming). */
  prewarm(): void {
    if (this.slots.size === 0 && !this.closed) {
      this.spawn();
      // A warm thread with no job still goes after the idle period.
      this.scheduleShrink();
    }
  }

  /** Ends a running job by terminating its thread (cancellation, stalls). */
  kill(jobId: string): void {
    for (const s of this.slots.values()) if (s.job?.spec.job_id === jobId) this.stop(s, "SIGTERM");
  }

  /** Process id of the runner host, when one runs (diagnostics, benchmarks). */
  pids(): number[] {
    const pid = this.host?.child.pid;
    return pid === undefined ? [] : [pid];
  }

  /** Slot ids of the live threads; a replaced thread's slot gets a new id (diagnostics, tests). */
  threads(): number[] {
    return [...this.slots.keys()];
  }

  async close(): Promise<void> {
    this.closed = true;
    clearTimeout(this.idleTimer);
    if (this.host) await this.endHost(this.host);
  }

  private send(host: Host, m: HostMessage): void {
    if (host.child.connected) host.child.send(m);
  }

  private stop(slot: Slot, signal: NodeJS.Signals | null = null): void {
    slot.stoppedBy ??= signal;
    void slot.host.up.then((up) => up && this.send(slot.host, { type: "stop", slot: slot.id }));
  }

  private startHost(): Host {
    const child = fork(this.o.entry, [], {
      execPath: this.o.nodePath ?? process.execPath,
      execArgv: WARM_RUNNER_FLAGS,
      env: { ...WARM_RUNNER_ENV, ...this.o.env },
      stdio: ["ignore", "ignore", "pipe", "ipc"],
      serialization: "json",
    });
    let markUp: (up: boolean) => void = () => {};
    const host: Host = { child, up: new Promise<boolean>((r) => (markUp = r)), stderrTail: "" };
    child.stderr?.on("data", (chunk: Buffer) => {
      // The last 4 KiB of the host's own output, for the failure detail when it dies.
      host.stderrTail = (host.stderrTail + chunk.toString("utf8")).slice(-4096);
    });
    child.on("message", (m: WorkerMessage) => {
      if (m.type === "up") return markUp(true);
      const slot = this.slots.get(m.slot);
      if (!slot || slot.host !== host) return;
      if (m.type === "ready") {
        slot.started = true;
        slot.markReady(true);
      } else if (m.type === "log") {
        // The last 4 KiB of the current job, for the failure detail of a crashed thread.
        slot.stderrTail = (slot.stderrTail + m.text).slice(-4096);
      } else if (m.type === "done") this.jobDone(slot, m);
      else this.slotGone(slot, { code: m.code, signal: null, outOfMemory: m.out_of_memory });
    });
    const gone = (code: number | null, signal: NodeJS.Signals | null) => {
      if (this.host !== host) return;
      this.host = null;
      markUp(false);
      // Its threads went with it: their jobs fail, and the next job starts a fresh host.
      for (const slot of [...this.slots.values()]) {
        slot.shrinking = true;
        slot.stderrTail += host.stderrTail;
        this.slotGone(slot, { code, signal });
      }
      if (!this.closed) queueMicrotask(() => this.o.onIdle());
    };
    child.once("error", (err) => {
      host.stderrTail += err.message;
      gone(null, null);
    });
    child.once("exit", gone);
    return host;
  }

  private spawn(): void {
    if (this.closed) return;
    this.host ??= this.startHost();
    const host = this.host;
    let markReady: (ok: boolean) => void = () => {};
    const slot: Slot = {
      id: this.nextSlot++,
      host,
      ready: new Promise<boolean>((resolve) => (markReady = resolve)),
      markReady: (ok) => markReady(ok),
      started: false,
      jobs: 0,
      baselineHeap: null,
      job: null,
      stderrTail: "",
      retiring: false,
      shrinking: false,
      stoppedBy: null,
    };
    this.slots.set(slot.id, slot);
    queueMicrotask(() => this.o.onIdle());
    void host.up.then((up) => up && this.send(host, { type: "start", slot: slot.id }));
  }

  private jobDone(slot: Slot, m: Extract<WorkerMessage, { type: "done" }>): void {
    const job = slot.job;
    if (!job || job.spec.job_id !== m.job_id) return;
    clearTimeout(job.timer);
    slot.job = null;
    slot.jobs++;
    slot.baselineHeap ??= m.heap;
    if (slot.jobs >= this.o.maxJobs || m.heap > slot.baselineHeap * this.o.heapGrowth) this.retire(slot);
    job.done({ code: m.exit_code, signal: null, stderrTail: slot.stderrTail });
    this.o.onIdle();
    this.scheduleShrink();
  }

  private slotGone(slot: Slot, end: Omit<JobEnd, "stderrTail">): void {
    if (this.slots.get(slot.id) !== slot) return;
    this.slots.delete(slot.id);
    slot.markReady(false);
    const job = slot.job;
    slot.job = null;
    if (job) {
      clearTimeout(job.timer);
      const stopped = slot.stoppedBy ? { code: null, signal: slot.stoppedBy } : {};
      job.done({ ...end, ...stopped, stderrTail: slot.stderrTail });
    }
    // A recycled or crashed warm thread is replaced at once (the next job finds it warm); one
    // that never started is left to the next job's demand, so a broken installation does not
    // spin, and one stopped for idleness stays stopped.
    if (slot.started && !slot.shrinking) this.spawn();
    else if (!slot.started && !this.closed) setTimeout(() => this.o.onIdle(), 1000).unref();
    // A host without threads holds the model for nobody. It is let go at once, so a job that
    // comes while it exits starts a fresh host instead of a thread on the one ending.
    if (this.slots.size === 0 && this.host) {
      const host = this.host;
      this.host = null;
      void this.endHost(host);
    }
    this.scheduleShrink();
  }

  /** Stops the host (its threads with it): SIGTERM, SIGKILL after 5 s. */
  private endHost(host: Host): Promise<void> {
    return stopChild(host.child);
  }

  /** After `idleMs` with no job on any thread, every thread exits, then the host. */
  private scheduleShrink(): void {
    clearTimeout(this.idleTimer);
    if (this.o.idleMs === undefined || [...this.slots.values()].some((s) => s.job !== null)) return;
    this.idleTimer = setTimeout(() => {
      if ([...this.slots.values()].some((s) => s.job !== null)) return;
      for (const slot of this.slots.values()) {
        slot.shrinking = true;
        this.retire(slot);
      }
    }, this.o.idleMs);
    this.idleTimer.unref();
  }

  private retire(slot: Slot): void {
    slot.retiring = true;
    // The replacement starts warming while this one exits.
    this.stop(slot);
  }
}
