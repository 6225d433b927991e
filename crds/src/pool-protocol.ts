/**
 * Messages between the embedded executor's runner pool (api/src/dispatch/runner-pool.ts) and
 * its runner host process (runner/src/jobs/pool-host.ts), over Node IPC. The host runs each pool
 * slot as a worker thread; every message names the slot it is about.
 */
import { z } from "zod";
import { JobSpec } from "./job-spec.ts";

/** A job for a thread (what the host hands on to the slot's thread). */
export const RunMessage = z.object({
  type: z.literal("run"),
  spec: JobSpec,
  callback_url: z.url(),
  callback_key: z.string().min(1),
  attempt: z.string().min(1),
  traceparent: z.string().optional(),
});
export type RunMessage = z.infer<typeof RunMessage>;

const Slot = z.number().int().nonnegative();

/** Pool → host: start a thread for a slot, run a job on it, or end it (timeout, cancel, recycle). */
export const HostMessage = z.discriminatedUnion("type", [
  z.object({ type: z.literal("start"), slot: Slot }),
  RunMessage.extend({ slot: Slot }),
  z.object({ type: z.literal("stop"), slot: Slot }),
]);
export type HostMessage = z.infer<typeof HostMessage>;

/**
 * Host → pool: the host listens (sent once; the pool sends nothing before it); a slot's thread is warm; finished a job (exit code as a one-shot runner's; `heap`
 * is the thread's own V8 heap after the job, in bytes); wrote to stderr; or ended (`code` is the
 * thread's exit code; `out_of_memory` when its heap hit the thread's limit).
 */
export type WorkerMessage =
  | { type: "up" }
  | { type: "ready"; slot: number }
  | { type: "done"; slot: number; job_id: string; exit_code: number; heap: number }
  | { type: "log"; slot: number; text: string }
  | { type: "exit"; slot: number; code: number; out_of_memory: boolean };

/** Environment variable naming a model version to load before the first job arrives. */
export const PRELOAD_MODEL_ENV = "CAUSEWAY_PRELOAD_MODEL";
