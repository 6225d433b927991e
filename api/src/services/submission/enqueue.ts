/**
 * Step (f) of every submission, after its row is recorded: hand the job spec to the dispatcher.
 * A job that cannot be queued fails at once (non-billable, so its row gives back what it holds)
 * and the client is told to retry.
 */
import type { FastifyBaseLogger } from "fastify";
import type { JobSpec } from "@causeway/contract";
import type { AppContext } from "../../context.ts";
import { ServiceUnavailable } from "../../errors.ts";
import type { JobTrace } from "../../observability/request-tracing.ts";

export async function enqueueJob(
  ctx: AppContext,
  spec: JobSpec,
  trace: JobTrace,
  log: FastifyBaseLogger,
): Promise<void> {
  try {
    // The runner continues the request's trace (a prediction's from its enqueue phase).
    await ctx.dispatcher.dispatch(spec, trace.jobContext());
  } catch (err) {
    log.error({ err }, "dispatch failed");
    await ctx.jobs.fail(
      spec.kind,
      spec.job_id,
      "internal_error",
      "The job could not be queued. Please submit it again.",
    );
    throw new ServiceUnavailable();
  }
}
