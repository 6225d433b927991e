/**
 * A long-lived runner process of the embedded executor's pool (api/src/dispatch/runner-pool.ts):
 * the same job run as `runner/src/main.ts`, many times, with the model version loaded once.
 * Start-up, module imports and the model load are most of a short job's time; a warm process
 * pays them once. Each job still gets its own output prefix (spec.output_prefix + attempt), its
 * own working directory and its own reporter; the parent bounds its time and recycles the
 * process after a number of jobs or when its memory grows.
 *
 * Protocol (Node IPC): the parent sends `{ type: "run", ... }`; the worker answers
 * `{ type: "ready" }` once at start and `{ type: "done", job_id, exit_code, rss }` per job.
 * A fault outside the job's own failure handling ends the process after answering: the parent
 * fails that job only and starts a fresh worker.
 */
import { loadModel } from "../model/index.ts";
import {
  JobFailure,
  PRELOAD_MODEL_ENV,
  RUNNER_EXIT,
  RunMessage,
  type WorkerMessage,
} from "@causeway/contract";
import { contextFromTraceparent, initTracing, inSpan } from "@causeway/contract/telemetry";
import { HttpCallbackReporter } from "./reporter.ts";
import { runJob } from "./run-job.ts";
import { storeFromEnv } from "./store-from-env.ts";

function send(message: WorkerMessage): Promise<void> {
  return new Promise((resolve) => {
    if (!process.send) return resolve();
    process.send(message, undefined, {}, () => resolve());
  });
}

async function runOne(raw: unknown): Promise<void> {
  const msg = RunMessage.parse(raw);
  const { spec } = msg;
  const reporter = new HttpCallbackReporter({
    url: msg.callback_url,
    keyHex: msg.callback_key,
    jobId: spec.job_id,
    kind: spec.kind,
    attempt: msg.attempt,
  });
  let exitCode: number = RUNNER_EXIT.crashed;
  try {
    const outcome = await inSpan(
      "runner.job",
      async (span) => {
        span.setAttributes({ "causeway.job.kind": spec.kind, "causeway.model_version": spec.model_version });
        return runJob(spec, { store, reporter, attempt: msg.attempt, cacheDir });
      },
      contextFromTraceparent(msg.traceparent, undefined),
    );
    exitCode = outcome.exitCode;
    process.stderr.write(
      outcome.report.status === "completed"
        ? `job ${spec.job_id} completed\n`
        : `job ${spec.job_id} failed: ${outcome.report.error_code}\n`,
    );
  } catch (err) {
    // Could not even report: the parent fails the job; this process may be in a bad state.
    process.stderr.write(
      `runner crashed: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`,
    );
    await send({ type: "done", job_id: spec.job_id, exit_code: exitCode, rss: process.memoryUsage().rss });
    process.exit(RUNNER_EXIT.crashed);
  }
  await send({ type: "done", job_id: spec.job_id, exit_code: exitCode, rss: process.memoryUsage().rss });
}

const tracing = await initTracing("causeway-runner");
const store = await storeFromEnv(process.env);
const cacheDir = process.env.CAUSEWAY_CACHE_DIR;
const preload = process.env[PRELOAD_MODEL_ENV];
/**
 * The server starts a warm runner while a job waits for its model version's import: until the
 * version is in, the preload tries again in the background (a job's own load joins the same
 * promise). Any other failure is left to the first job's load, which reports it.
 */
async function preloadWhenImported(version: string): Promise<void> {
  for (let attempt = 0; attempt < 1200; attempt++) {
    await new Promise((resolve) => setTimeout(resolve, 500));
    try {
      await loadModel(store, version, { cacheDir });
      return;
    } catch (err) {
      if (!(err instanceof JobFailure && err.code === "unknown_model_version")) return;
    }
  }
}

// Warm the model and both kinds' modules (run-job.ts loads them on demand) before the first job,
// at once: the model's reads overlap the modules' compilation.
const modules = Promise.all([import("./prediction-job.ts"), import("./causal-job.ts")]);
if (preload)
  await loadModel(store, preload, { cacheDir }).catch((err: unknown) => {
    if (err instanceof JobFailure && err.code === "unknown_model_version") void preloadWhenImported(preload);
  });
await modules;

// Jobs arrive one at a time (the parent never sends a second before "done").
let queue = Promise.resolve();
process.on("message", (raw: unknown) => {
  queue = queue
    .then(() => runOne(raw))
    .catch(async (err: unknown) => {
      process.stderr.write(`invalid job message: ${err instanceof Error ? err.message : String(err)}\n`);
      process.exit(RUNNER_EXIT.crashed);
    });
});
// The API went away: nothing will collect the results.
process.on("disconnect", () => {
  void tracing.shutdown().finally(() => process.exit(0));
});
await send({ type: "ready" });
