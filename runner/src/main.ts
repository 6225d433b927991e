/**
 * Entry point of one job run: the container command of the Kubernetes Job and the process
 * the embedded local executor starts (`node runner/src/main.ts`). Everything it needs comes
 * from the environment (RUNNER_ENV of the contract plus the storage settings).
 */
import { randomUUID } from "node:crypto";
import { JobSpec, RUNNER_ENV, RUNNER_EXIT } from "./contract/index.ts";
import { HttpCallbackReporter } from "./jobs/reporter.ts";
import { runJob } from "./jobs/run-job.ts";
import { storeFromEnv } from "./jobs/store-from-env.ts";

function required(name: string): string {
  const value = process.env[name];
  if (!value) throw new Error(`${name} is not set`);
  return value;
}

async function main(): Promise<number> {
  const spec = JobSpec.parse(JSON.parse(required(RUNNER_ENV.jobSpec)));
  const attempt = process.env[RUNNER_ENV.attempt] || randomUUID();
  const reporter = new HttpCallbackReporter({
    url: required(RUNNER_ENV.callbackUrl),
    keyHex: required(RUNNER_ENV.callbackKey),
    jobId: spec.job_id,
    kind: spec.kind,
    attempt,
  });
  const outcome = await runJob(spec, {
    store: storeFromEnv(process.env),
    reporter,
    attempt,
    cacheDir: process.env.CAUSEWAY_CACHE_DIR,
  });
  process.stderr.write(
    outcome.report.status === "completed"
      ? `job ${spec.job_id} completed\n`
      : `job ${spec.job_id} failed: ${outcome.report.error_code}\n`,
  );
  return outcome.exitCode;
}

try {
  process.exitCode = await main();
} catch (err) {
  // Could not even report: the operator or the API's stuck-job sweeper takes over.
  process.stderr.write(`runner crashed: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`);
  process.exitCode = RUNNER_EXIT.crashed;
}
