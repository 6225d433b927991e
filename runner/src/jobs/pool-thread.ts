/**
 * One slot of the embedded executor's warm runner pool: a worker thread of the runner host
 * (pool-host.ts) that runs the same job as `runner/src/main.ts`, many times, with its modules
 * and the model version warm. Start-up, module imports and the model load are most of a short
 * job's time; a warm thread pays them once. The model's large arrays are the host's shared copy
 * (model/shared-bundle.ts); the thread assembles its own Model around them. Each job still gets
 * its own output prefix (spec.output_prefix + attempt), its own working directory and its own
 * reporter; the pool bounds its time and recycles the thread after a number of jobs or when its
 * heap grows.
 *
 * Protocol (parentPort): the host sends a RunMessage; the thread answers `{ type: "ready" }`
 * once at start and `{ type: "done", job_id, exit_code, heap }` per job, and asks for model
 * versions (`{ type: "bundle" }`). A fault outside the job's own failure handling ends the
 * thread after answering: the pool fails that job only and starts a fresh thread.
 */
import { getHeapStatistics, setFlagsFromString } from "node:v8";
import { runInNewContext } from "node:vm";
import { parentPort } from "node:worker_threads";
import { CACHE_ENV, JobFailure, PRELOAD_MODEL_ENV, RUNNER_EXIT, type RunMessage } from "@causeway/contract";
import { contextFromTraceparent, initTracing, inSpan } from "@causeway/contract/telemetry";
import { sharedModelLoader } from "../model/shared-bundle.ts";
import { HttpCallbackReporter } from "./reporter.ts";
import { runJob } from "./run-job.ts";
import { storeFromEnv } from "./store-from-env.ts";

/** What a thread tells its host (the host adds the slot). */
export type ThreadMessage =
  { type: "ready" } | { type: "done"; job_id: string; exit_code: number; heap: number };

if (!parentPort) throw new Error("pool-thread.ts runs as a worker thread of pool-host.ts");
const port = parentPort;
const send = (message: ThreadMessage): void => port.postMessage(message);

async function runOne(msg: RunMessage): Promise<void> {
  const { spec } = msg;
  const reporter = new HttpCallbackReporter({
    url: msg.callback_url,
    keyHex: msg.callback_key,
    jobId: spec.job_id,
    kind: spec.kind,
    attempt: msg.attempt,
  });
  let exitCode: number = RUNNER_EXIT.crashed;
  const done = () =>
    send({
      type: "done",
      job_id: spec.job_id,
      exit_code: exitCode,
      heap: getHeapStatistics().total_heap_size,
    });
  try {
    const outcome = await inSpan(
      "runner.job",
      async (span) => {
        span.setAttributes({ "causeway.job.kind": spec.kind, "causeway.model_version": spec.model_version });
        return runJob(spec, { store, reporter, attempt: msg.attempt, cacheDir, loadModel });
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
    // Could not even report: the pool fails the job; this thread may be in a bad state.
    process.stderr.write(
      `runner crashed: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`,
    );
    done();
    process.exit(RUNNER_EXIT.crashed);
  }
  done();
  idleGc = setTimeout(fullGc, IDLE_GC_MS);
}

/**
 * A full collection once the thread has been idle for a few seconds after a job: otherwise a job's
 * garbage (DE, scoring, the PNG) stays in the idle thread's heap until the next job's
 * allocations (api/docs/memory.md has the figures). Not at once: a collection right after each
 * job slowed the next job of a burst (`npm run bench harden`), as it then regrows a shrunken heap.
 */
const IDLE_GC_MS = 5000;
setFlagsFromString("--expose-gc");
const fullGc = runInNewContext("gc") as () => void;
let idleGc: NodeJS.Timeout | undefined;
const tracing = await initTracing("causeway-runner");
const store = await storeFromEnv(process.env);
const cacheDir = process.env[CACHE_ENV.runner];
const loadModel = sharedModelLoader(port);
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
      await loadModel(version);
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
  await loadModel(preload).catch((err: unknown) => {
    if (err instanceof JobFailure && err.code === "unknown_model_version") void preloadWhenImported(preload);
  });
await modules;

// Jobs arrive one at a time (the pool never sends a second before "done"); the host validated them.
let queue = Promise.resolve();
port.on("message", (m: { type?: unknown }) => {
  if (m.type !== "run") return;
  clearTimeout(idleGc);
  queue = queue
    .then(() => runOne(m as RunMessage))
    .catch((err: unknown) => {
      process.stderr.write(`runner thread failed: ${err instanceof Error ? err.message : String(err)}\n`);
      process.exit(RUNNER_EXIT.crashed);
    });
});
port.once("close", () => void tracing.shutdown());
send({ type: "ready" });
