/**
 * Messages between the embedded executor's runner pool (api/src/dispatch/runner-pool.ts) and
 * its long-lived runner processes (runner/src/jobs/pool-worker.ts), over Node IPC.
 */
import { z } from "zod";
import { JobSpec } from "./job-spec.ts";

export const RunMessage = z.object({
  type: z.literal("run"),
  spec: JobSpec,
  callback_url: z.url(),
  callback_key: z.string().min(1),
  attempt: z.string().min(1),
  traceparent: z.string().optional(),
});
export type RunMessage = z.infer<typeof RunMessage>;

export type WorkerMessage =
  { type: "ready" } | { type: "done"; job_id: string; exit_code: number; rss: number };

/** Environment variable naming a model version to load before the first job arrives. */
export const PRELOAD_MODEL_ENV = "CAUSEWAY_PRELOAD_MODEL";
