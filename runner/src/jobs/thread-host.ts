/**
 * The runner host of the embedded executor's warm pool: one process, forked by the API
 * (api/src/dispatch/runner-pool.ts), whose worker threads are the pool's slots. The host owns
 * what the slots share, each model version's large arrays read once into shared memory
 * (model/shared-bundle.ts), and keeps the API free of jobs: a thread that fails or runs out of
 * its heap ends alone, and a native crash of a job ends this process, never the API.
 *
 * The host only relays: the pool says which slot starts, runs a job or stops (HostMessage); the
 * host answers for each slot when its thread is warm, finished a job, wrote to stderr or ended.
 */
import { Worker, type ResourceLimits } from "node:worker_threads";
import { HostMessage, RUNNER_EXIT, type WorkerMessage } from "@causeway/contract";
import type { SharedBundles } from "../model/shared-bundle.ts";

/**
 * V8 heap limits of a slot's thread, the thread's equivalent of the warm runner's process flags
 * (WARM_RUNNER_FLAGS): small semi-spaces make V8 collect a job's short-lived garbage sooner (the
 * young generation is three semi-spaces), and the old-space ceiling ends a runaway job's thread
 * with ERR_WORKER_OUT_OF_MEMORY instead of growing the host. Model arrays and expression
 * matrices are typed arrays outside these limits.
 */
export const THREAD_LIMITS: ResourceLimits = { maxOldGenerationSizeMb: 512, maxYoungGenerationSizeMb: 6 };

export interface ThreadHostOptions {
  /** Module each slot's thread runs (pool-thread.ts). */
  threadEntry: URL;
  bundles: SharedBundles;
  resourceLimits?: ResourceLimits;
}

/** Serves the pool over this process's IPC channel until the pool goes away. */
export function runThreadHost(o: ThreadHostOptions): void {
  const threads = new Map<number, Worker>();
  const send = (m: WorkerMessage): void => void process.send?.(m);

  const start = (slot: number): void => {
    if (threads.has(slot)) return;
    const worker = new Worker(o.threadEntry, {
      stderr: true,
      resourceLimits: o.resourceLimits ?? THREAD_LIMITS,
    });
    threads.set(slot, worker);
    let outOfMemory = false;
    o.bundles.serve(worker);
    worker.stderr.on("data", (chunk: Buffer) => send({ type: "log", slot, text: chunk.toString("utf8") }));
    worker.on("message", (m: { type?: unknown; job_id?: string; exit_code?: number; heap?: number }) => {
      if (m.type === "ready") send({ type: "ready", slot });
      else if (m.type === "done")
        send({ type: "done", slot, job_id: m.job_id!, exit_code: m.exit_code!, heap: m.heap! });
    });
    worker.on("error", (err: Error & { code?: string }) => {
      outOfMemory ||= err.code === "ERR_WORKER_OUT_OF_MEMORY";
      send({ type: "log", slot, text: `runner thread failed: ${err.stack ?? err.message}\n` });
    });
    worker.once("exit", (code) => {
      threads.delete(slot);
      send({ type: "exit", slot, code, out_of_memory: outOfMemory });
    });
  };

  process.on("message", (raw: unknown) => {
    const parsed = HostMessage.safeParse(raw);
    if (!parsed.success) {
      process.stderr.write(`invalid pool message: ${parsed.error.message}\n`);
      process.exit(RUNNER_EXIT.crashed);
    }
    const m = parsed.data;
    if (m.type === "start") return start(m.slot);
    const worker = threads.get(m.slot);
    if (m.type === "stop") return void worker?.terminate();
    const { slot: _slot, ...run } = m;
    worker?.postMessage(run);
  });
  // The API went away: nothing will collect the results.
  process.on("disconnect", () => {
    void Promise.all([...threads.values()].map((w) => w.terminate())).finally(() => process.exit(0));
  });
  send({ type: "up" });
}
