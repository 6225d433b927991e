/**
 * The decision for a resource that disappeared from the cluster (its informer's delete event,
 * the last state the apiserver had). Owner references take its Job and pods away, and the
 * runner gets no chance to report (it has no SIGTERM callback), so a resource deleted while its
 * job ran (an admin's cancel) would leave the API's job "processing" until its stuck-job
 * sweeper gives up. The operator tells the API at once, through the same signed failure report
 * it uses for the failures only it can see; the API applies it only to a job still pending or
 * processing, so a report racing the runner's own final callback is harmless.
 */
import type { CausewayResource } from "@causeway/contract";
import { isTerminal } from "./runner-job.ts";
import type { Decision } from "./types.ts";

/** The decision for the last observed state of a deleted resource: a failure report, or nothing. */
export function decideDeleted(last: CausewayResource): Decision {
  const none: Decision = { actions: [], status: null, events: [], requeueAfterMs: null };
  // Finished (by the operator's status, or by the runner's report the API mirrored): the API
  // knows the outcome already, and a resource deleted by its TTL is always finished.
  const reported = last.status?.reported?.status;
  if (isTerminal(last.status?.phase) || reported === "completed" || reported === "failed") return none;
  const name = last.metadata.name ?? "";
  return {
    ...none,
    actions: [
      {
        type: "reportFailure",
        errorCode: "internal_error",
        message: `The job's ${last.kind} resource ${name} was deleted in the cluster before the job finished.`,
      },
    ],
  };
}
