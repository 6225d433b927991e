/**
 * Entry point of one job run: the container command of the Kubernetes Job and the process
 * the embedded local executor starts (`node runner/src/main.ts`). Everything it needs comes
 * from the environment (RUNNER_ENV of the contract plus the storage settings).
 */
import { randomUUID } from "node:crypto";
import { readFileSync } from "node:fs";
import { CACHE_ENV, JobSpec, RUNNER_ENV, RUNNER_EXIT } from "@causeway/contract";
import { HttpCallbackReporter } from "./jobs/reporter.ts";
import { runJob } from "./jobs/run-job.ts";
import { storeFromEnv } from "./jobs/store-from-env.ts";
import { contextFromTraceparent, initTracing, inSpan } from "@causeway/contract/telemetry";

function required(name: string): string {
  const value = process.env[name];
  if (!value) throw new Error(`${name} is not set`);
  return value;
}

/** The callback key: from the mounted Secret file when given, else from the environment. */
function callbackKey(): string {
  const file = process.env[RUNNER_ENV.callbackKeyFile];
  return file ? readFileSync(file, "utf8").trim() : required(RUNNER_ENV.callbackKey);
}

async function main(): Promise<number> {
  const spec = JobSpec.parse(JSON.parse(required(RUNNER_ENV.jobSpec)));
  const attempt = process.env[RUNNER_ENV.attempt] || randomUUID();
  const reporter = new HttpCallbackReporter({
    url: required(RUNNER_ENV.callbackUrl),
    keyHex: callbackKey(),
    jobId: spec.job_id,
    kind: spec.kind,
    attempt,
  });
  // The job's trace continues the one that created it (TRACEPARENT from the Job's environment).
  const parent = contextFromTraceparent(process.env.TRACEPARENT, process.env.TRACESTATE);
  const outcome = await inSpan(
    "runner.job",
    async (span) => {
      span.setAttributes({ "causeway.job.kind": spec.kind, "causeway.model_version": spec.model_version });
      return runJob(spec, {
        store: await storeFromEnv(process.env),
        reporter,
        attempt,
        cacheDir: process.env[CACHE_ENV.runner],
      });
    },
    parent,
  );
  process.stderr.write(
    outcome.report.status === "completed"
      ? `job ${spec.job_id} completed\n`
      : `job ${spec.job_id} failed: ${outcome.report.error_code}\n`,
  );
  return outcome.exitCode;
}

const tracing = await initTracing("causeway-runner");
try {
  process.exitCode = await main();
} catch (err) {
  // Could not even report: the operator or the API's stuck-job sweeper takes over.
  process.stderr.write(
    `runner crashed: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`,
  );
  process.exitCode = RUNNER_EXIT.crashed;
} finally {
  await tracing.shutdown();
}
