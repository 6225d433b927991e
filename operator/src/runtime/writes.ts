/**
 * The writes a pass makes: a Decision's actions (an exhaustive switch) and its status write.
 * Each write the operator will see again in its watch (the status update, the Job create) is
 * announced to the own-write expectations before it is sent, so its echo is known for what it
 * is, also when it arrives before the write's answer (expectations.ts).
 */
import type { V1Job } from "@kubernetes/client-node";
import type { Logger } from "pino";
import type { CausewayResource, JobKind } from "@causeway/contract";
import { inSpan, traceContextOf } from "@causeway/contract/telemetry";
import { withTraceEnv } from "../observability/tracing.ts";
import { jobOwnerReference } from "../reconcile/job.ts";
import type { OperatorStatus } from "../reconcile/runner-job.ts";
import type { Action, JobRejection } from "../reconcile/types.ts";
import type { FailureReporter } from "./api-callback.ts";
import type { Expectations, Settled } from "./expectations.ts";
import { rejection, type KubeGateway, type StatusWrite } from "./kube.ts";
import type { OperatorMetrics } from "./metrics.ts";

/** Options of {@link PassWrites}. */
export interface PassWritesOptions {
  gateway: KubeGateway;
  metrics: OperatorMetrics;
  /** Tells the API about operator-detected failures; runs in the background, never blocks a pass. */
  reportFailure?: FailureReporter;
  /** Own status writes, by queue key. */
  statusWrites: Expectations;
  /** Own Job creates, by namespace/name. */
  jobCreates: Expectations;
  /** Queues a key for a watch event that arrived during a write and was news. */
  requeue: (source: "resource" | "job", key: string) => void;
}

/**
 * What became of an action: done; "reobserve" when a create found its Job already there; a
 * rejection when the apiserver refused the Job for good (the pass decides again with it).
 */
export type ActionResult = "done" | "reobserve" | { rejected: JobRejection };

export class PassWrites {
  private readonly o: PassWritesOptions;

  constructor(options: PassWritesOptions) {
    this.o = options;
  }

  /** Applies the operator's status fields, conditional on the copy's resourceVersion. */
  async writeStatus(
    key: string,
    resource: CausewayResource,
    status: OperatorStatus,
    log: Logger,
  ): Promise<StatusWrite> {
    this.o.statusWrites.begin(key);
    let written: StatusWrite | undefined;
    try {
      written = await this.o.gateway.applyStatus(resource, status);
      if (written === "conflict") log.debug("status write met a newer resource version");
      else {
        const failed = status.conditions?.find((c) => c.type === "Failed" && c.status === "True");
        log.info({ phase: status.phase, reason: failed?.reason, message: failed?.message }, "status written");
      }
      return written;
    } finally {
      const after = written !== undefined && written !== "conflict" ? written.resourceVersion : undefined;
      this.released(
        "resource",
        key,
        this.o.statusWrites.settleUpdate(key, after, resource.metadata.resourceVersion),
      );
    }
  }

  /** Carries out one action (see ActionResult). */
  async apply(
    kind: JobKind,
    key: string,
    resource: CausewayResource,
    action: Action,
    log: Logger,
  ): Promise<ActionResult> {
    const gw = this.o.gateway;
    const namespace = resource.metadata.namespace ?? "";
    switch (action.type) {
      case "createSecret":
        await gw.createSecret(action.secret);
        return "done";
      case "deleteJob":
        await gw.deleteJob(namespace, action.name);
        return "done";
      case "deleteResource": {
        const { uid, resourceVersion } = action;
        const deleted = await gw.deleteResource(resource, { uid, resourceVersion });
        // A conflict means the resource changed (or was recreated) since the cache's copy: the
        // newer version's watch event brings the key back, and that pass decides again.
        if (deleted === "conflict") log.debug("resource delete met a newer version or another uid");
        else log.info({ deleted }, "deleted the finished resource after its TTL");
        return "done";
      }
      case "reportFailure": {
        const { errorCode, message } = action;
        void this.o.reportFailure?.({ kind, jobId: resource.spec.job_id, errorCode, message });
        return "done";
      }
      case "createJob": {
        const jobKey = `${namespace}/${action.job.metadata?.name ?? ""}`;
        this.o.jobCreates.begin(jobKey);
        let created: V1Job | "exists" | undefined;
        try {
          // The runner's TRACEPARENT points at the span that created its Job.
          created = await inSpan("operator.create_job", (span) =>
            gw.createJob(withTraceEnv(action.job, traceContextOf(span))),
          );
        } catch (err) {
          // Refused for good (admission, policy, an invalid field): reconcile fails the resource.
          // Anything else is thrown on to the queue's backoff.
          const rejected = rejection(err);
          if (!rejected) throw err;
          log.warn({ job: action.job.metadata?.name, ...rejected }, "the apiserver rejected the runner Job");
          return { rejected };
        } finally {
          const version = created === "exists" ? undefined : created?.metadata?.resourceVersion;
          this.released("job", key, this.o.jobCreates.settle(jobKey, version));
        }
        // An earlier pass or another leader was first: whose Job it is, the next round decides.
        if (created === "exists") return "reobserve";
        // A crash before this create leaves a Job without its Secret: the next pass sees a Job
        // the status does not name yet and creates the Secret (reconcile's createSecret).
        await gw.createSecret({
          ...action.secret,
          metadata: { ...action.secret.metadata, ownerReferences: [jobOwnerReference(created)] },
        });
        this.o.metrics.jobsCreated.inc({ kind });
        log.info({ job: action.job.metadata?.name }, "created runner Job");
        return "done";
      }
      default:
        return unreachable(action);
    }
  }

  /** Counts the watch events held during an own write and queues those that were news. */
  private released(source: "resource" | "job", key: string, { own, news }: Settled): void {
    const triggers = this.o.metrics.reconcileTriggers;
    if (own > 0) triggers.inc({ source, outcome: source === "job" ? "own_job" : "own_write" }, own);
    for (let i = 0; i < news.length; i++) {
      triggers.inc({ source, outcome: "queued" });
      this.o.requeue(source, key);
    }
  }
}

/** Makes a new Action type a compile error here until the runtime carries it out. */
function unreachable(action: never): never {
  throw new Error(`unknown action ${JSON.stringify(action)}`);
}
