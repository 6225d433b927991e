/**
 * Request/response calls to one worker thread, matched by id: started on first use and ended after
 * a while without calls (its heap is then handed back; the next call starts a fresh one).
 */
import { Worker } from "node:worker_threads";

type DistributiveOmit<T, K extends PropertyKey> = T extends unknown ? Omit<T, K> : never;

/**
 * How long a status worker stays without a call before it exits. A worker thread holds its own
 * V8 heap (tens of MB once it has rendered a 13 MB body); the next render starts one again in
 * about 50 ms, which a completed job's first poll can afford and an idle server should not pay for.
 */
export const WORKER_IDLE_MS = 30_000;

/** Calls to one worker thread (a module of this folder), started on first use, ended when idle. */
export class WorkerCalls<Req extends { id: number }, Res extends { id: number; ok: boolean }> {
  private readonly file: URL;
  private readonly idleMs: number;
  private worker: Worker | undefined;
  private idleTimer: NodeJS.Timeout | undefined;
  /** Unanswered calls with the worker each was sent to. */
  private readonly calls = new Map<
    number,
    { worker: Worker; done: (res: Res | { id: number; ok: false; message: string }) => void }
  >();
  private nextCall = 1;
  private readonly recycleAfter: number;
  /** Calls sent to the current worker. */
  private callsToWorker = 0;

  /**
   * `file`: the worker module's URL; `idleMs`: how long it may stay without a call;
   * `recycleAfter`: calls after which the worker is ended once idle, and the next call starts a
   * fresh one (native memory a worker's garbage collector does not see is handed back that way).
   */
  constructor(file: URL, idleMs = WORKER_IDLE_MS, recycleAfter = Infinity) {
    this.file = file;
    this.idleMs = idleMs;
    this.recycleAfter = recycleAfter;
  }

  /** Whether a worker thread is running now. */
  get running(): boolean {
    return this.worker !== undefined;
  }

  /** Calls sent and not yet answered. */
  get pending(): number {
    return this.calls.size;
  }

  call(req: DistributiveOmit<Req, "id">): Promise<Res | { id: number; ok: false; message: string }> {
    clearTimeout(this.idleTimer);
    const worker = this.ensureWorker();
    this.callsToWorker++;
    const id = this.nextCall++;
    return new Promise((resolve) => {
      this.calls.set(id, { worker, done: resolve });
      worker.postMessage({ ...req, id });
    });
  }

  async close(): Promise<void> {
    clearTimeout(this.idleTimer);
    const w = this.worker;
    this.worker = undefined;
    if (w) await w.terminate();
  }

  private ensureWorker(): Worker {
    if (this.worker) return this.worker;
    const worker = new Worker(this.file);
    this.callsToWorker = 0;
    // An idle worker must not keep the process alive.
    worker.unref();
    worker.on("message", (res: Res) => {
      const call = this.calls.get(res.id);
      this.calls.delete(res.id);
      call?.done(res);
      if (this.calls.size > 0) return;
      if (this.callsToWorker >= this.recycleAfter && this.worker === worker) {
        this.worker = undefined;
        void worker.terminate();
      } else this.endWhenIdle(worker);
    });
    // Only this worker's calls: a retired worker's exit arrives after its successor took calls.
    const fail = (message: string) => {
      if (this.worker === worker) this.worker = undefined;
      for (const [id, call] of this.calls) {
        if (call.worker !== worker) continue;
        this.calls.delete(id);
        call.done({ id, ok: false, message });
      }
    };
    worker.on("error", (err) => fail(err.message));
    worker.on("exit", (code) => fail(`status worker exited with code ${code}`));
    this.worker = worker;
    return worker;
  }

  private endWhenIdle(worker: Worker): void {
    clearTimeout(this.idleTimer);
    this.idleTimer = setTimeout(() => {
      if (this.worker !== worker || this.calls.size > 0) return;
      this.worker = undefined;
      void worker.terminate();
    }, this.idleMs);
    this.idleTimer.unref();
  }
}
