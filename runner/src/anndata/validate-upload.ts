/**
 * `validateUpload`: the API's structural check of every uploaded .h5ad (contract rule 3(d)),
 * run in a worker thread with V8 heap limits and a capped wasm heap. The worker is recycled
 * after RECYCLE_AFTER files and after any error inside h5wasm or the worker, because h5wasm's
 * state can stay corrupted after an error (h5wasm#104); rejections by our own checks, made
 * before h5wasm failed, keep the worker. A file that takes longer than TIMEOUT_MS is refused
 * and its worker terminated, so a hostile file can cost neither a hang nor unbounded memory.
 * A retired worker is replaced at once, so the next upload does not wait for h5wasm to load.
 */
import { Worker } from "node:worker_threads";
import { z } from "zod";
import { UploadRejected } from "./errors.ts";
import type { UploadCheck } from "./check-upload.ts";

export type { UploadCheck } from "./check-upload.ts";
export { UploadRejected, type UploadRejectionCode } from "./errors.ts";

/** Options of `validateUpload`. */
export interface ValidateOptions {
  /** n_obs cap of this file: 1000 for split files, null for merged files (checked per arm later). */
  maxObs: number | null;
}

const RECYCLE_AFTER = 32;
/**
 * The workers go after this long without an upload (each holds an isolate and h5wasm's heap,
 * ~55 MB): the next upload starts one again (about a third of a second).
 */
const IDLE_MS = 30_000;
/**
 * Warm workers kept ready once a worker has been retired (a file made h5wasm fail, or it reached
 * RECYCLE_AFTER): two cover a burst of two faulting files while a third loads. Not before: well-formed
 * uploads never need them, and three workers loading h5wasm at once on two cores made the first
 * check after an idle period wait 0.48 s instead of 0.29 s, then slowed the job it was for.
 */
const SPARES = 2;
const TIMEOUT_MS = 10_000;
const RESOURCE_LIMITS = { maxOldGenerationSizeMb: 64, maxYoungGenerationSizeMb: 16, stackSizeMb: 4 };
const WASM_HEAP_BYTES = 128 * 1024 * 1024;

const WorkerReply = z.union([
  z.object({
    id: z.number(),
    ok: z.literal(true),
    check: z.object({
      nObs: z.number().int().nonnegative(),
      nVars: z.number().int().nonnegative(),
      obsColumns: z.array(z.string()),
      varColumns: z.array(z.string()),
      layers: z.array(z.string()),
    }),
  }),
  z.object({
    id: z.number(),
    ok: z.literal(false),
    code: z.enum(["invalid_h5ad", "too_many_observations"]),
    message: z.string(),
    detail: z.string().optional(),
    libraryFault: z.boolean(),
  }),
]);

interface Job {
  id: number;
  path: string;
  maxObs: number | null;
  resolve: (c: UploadCheck) => void;
  reject: (e: unknown) => void;
}

const GENERIC = "The file could not be read as AnnData; re-export it with anndata's write_h5ad.";

interface Slot {
  worker: Worker;
  ready: Promise<void>;
}

/**
 * One active worker that checks files one at a time, plus, after a first retirement, warm spares
 * that replace it the moment it is retired again (a fresh worker needs 0.3–1.5 s to load h5wasm,
 * more on a busy machine).
 */
class ValidatorWorker {
  private active: Slot | null = null;
  private spares: Slot[] = [];
  private closed = false;
  private filesChecked = 0;
  private readonly queue: Job[] = [];
  private current: { job: Job; timer: NodeJS.Timeout } | null = null;
  private nextId = 1;
  private idleTimer: NodeJS.Timeout | undefined;

  check(path: string, maxObs: number | null): Promise<UploadCheck> {
    this.closed = false;
    clearTimeout(this.idleTimer);
    return new Promise<UploadCheck>((resolve, reject) => {
      this.queue.push({ id: this.nextId++, path, maxObs, resolve, reject });
      this.pump();
    });
  }

  /** Starts the worker (not the spares) ahead of a check, e.g. while the upload is received. */
  prepare(): void {
    this.closed = false;
    if (this.current || this.queue.length > 0) return;
    this.ensureActive();
    this.endWhenIdle();
  }

  /** Threads running now (diagnostics, tests). */
  get threads(): { active: boolean; spares: number } {
    return { active: this.active !== null, spares: this.spares.length };
  }

  async warmUp(): Promise<void> {
    this.closed = false;
    this.ensureActive();
    this.ensureSpares();
    await Promise.all([this.active!.ready, ...this.spares.map((s) => s.ready)]);
  }

  async close(): Promise<void> {
    this.closed = true;
    clearTimeout(this.idleTimer);
    const slots = [this.active, ...this.spares];
    this.active = null;
    this.spares = [];
    await Promise.all(slots.map((s) => s?.worker.terminate()));
  }

  private spawn(): Slot {
    const worker = new Worker(new URL("./validate-worker.ts", import.meta.url), {
      resourceLimits: RESOURCE_LIMITS,
      workerData: { wasmHeapBytes: WASM_HEAP_BYTES },
      stdout: true,
      stderr: true,
    });
    // h5wasm prints HDF5 diagnostics and heap-growth refusals; they are expected here.
    worker.stdout.resume();
    worker.stderr.resume();
    worker.unref();
    const ready = new Promise<void>((resolve, reject) => {
      worker.on("message", (msg: unknown) => {
        if (typeof msg === "object" && msg !== null && "ready" in msg) resolve();
        else this.onReply(worker, msg);
      });
      worker.on("error", (err) => {
        reject(err);
        this.onFault(worker);
      });
      worker.on("exit", (code) => {
        reject(new Error(`validator worker exited with code ${code}`));
        this.onFault(worker);
      });
    });
    ready.catch(() => undefined);
    return { worker, ready };
  }

  private ensureActive(): Slot {
    if (!this.active) {
      this.active = this.spares.shift() ?? this.spawn();
      this.filesChecked = 0;
    }
    return this.active;
  }

  private ensureSpares(): void {
    while (!this.closed && this.spares.length < SPARES) this.spares.push(this.spawn());
  }

  private pump(): void {
    if (this.current || this.queue.length === 0) return;
    const job = this.queue.shift()!;
    const slot = this.ensureActive();
    slot.worker.ref();
    const timer = setTimeout(() => {
      this.retire(slot.worker);
      this.finish(
        job,
        new UploadRejected(
          "invalid_h5ad",
          "The file took too long to check; re-export it with anndata's write_h5ad.",
        ),
      );
    }, TIMEOUT_MS);
    this.current = { job, timer };
    slot.ready.then(
      () => slot.worker.postMessage({ id: job.id, path: job.path, maxObs: job.maxObs }),
      () => undefined,
    );
  }

  private onReply(worker: Worker, msg: unknown): void {
    const job = this.current?.job;
    if (!job || worker !== this.active?.worker) return;
    const parsed = WorkerReply.safeParse(msg);
    if (!parsed.success || parsed.data.id !== job.id) {
      this.retire(worker);
      this.finish(job, new UploadRejected("invalid_h5ad", GENERIC));
      return;
    }
    this.filesChecked++;
    const reply = parsed.data;
    // Retire before finishing, so that the next queued file goes to a fresh worker.
    if ((!reply.ok && reply.libraryFault) || this.filesChecked >= RECYCLE_AFTER) this.retire(worker);
    if (reply.ok) this.finish(job, null, reply.check);
    else this.finish(job, new UploadRejected(reply.code, reply.message));
  }

  private onFault(worker: Worker): void {
    if (this.spares.some((s) => s.worker === worker)) {
      this.spares = this.spares.filter((s) => s.worker !== worker);
      return;
    }
    if (worker !== this.active?.worker) return;
    this.active = null;
    // A crash or out-of-memory in the worker ends here: the file is refused, the API keeps running.
    const job = this.current?.job;
    if (job) this.finish(job, new UploadRejected("invalid_h5ad", GENERIC));
  }

  private finish(job: Job, rejection: UploadRejected | null, check?: UploadCheck): void {
    if (this.current?.job !== job) return;
    clearTimeout(this.current.timer);
    this.current = null;
    if (rejection) job.reject(rejection);
    else job.resolve(check!);
    if (this.active && this.queue.length === 0) this.active.worker.unref();
    this.pump();
    this.endWhenIdle();
  }

  /** The workers go after IDLE_MS with nothing to check. */
  private endWhenIdle(): void {
    if (this.current || this.queue.length > 0) return;
    clearTimeout(this.idleTimer);
    this.idleTimer = setTimeout(() => {
      if (!this.current && this.queue.length === 0) void this.close();
    }, IDLE_MS);
    this.idleTimer.unref();
  }

  /** Detaches `worker` (a spare takes over, a new spare starts) and terminates it. */
  private retire(worker: Worker): void {
    if (worker === this.active?.worker) this.active = null;
    void worker.terminate();
    if (!this.closed) {
      this.ensureActive();
      this.ensureSpares();
    }
  }
}

const shared = new ValidatorWorker();

/**
 * Checks that an uploaded file is a readable, self-contained AnnData file within the limits,
 * reading only metadata. Resolves with its dimensions and column names; rejects with
 * `UploadRejected` (`invalid_h5ad` or `too_many_observations`, with a user-facing message).
 * Calls are queued and served by one recyclable worker thread.
 */
export function validateUpload(path: string, options: ValidateOptions): Promise<UploadCheck> {
  return shared.check(path, options.maxObs);
}

/**
 * Starts the validator's worker now, so that it loads h5wasm while an upload is still being
 * received; it goes again after the idle period if no check follows.
 */
export function prepareUploadValidator(): void {
  shared.prepare();
}

/** The validator's threads now: whether a worker is up, and how many spares (diagnostics, tests). */
export function uploadValidatorThreads(): { active: boolean; spares: number } {
  return shared.threads;
}

/**
 * Starts the validator worker ahead of the first upload (h5wasm takes about half a second to
 * load), e.g. when the API boots. Optional: `validateUpload` starts it when needed.
 */
export function warmUpUploadValidator(): Promise<void> {
  return shared.warmUp();
}

/** Terminates the validator worker (graceful shutdown, tests); a later call starts a new one. */
export function closeUploadValidator(): Promise<void> {
  return shared.close();
}
