/**
 * The reconcile decision shared by both kinds, shaped like Kubeflow trainer's: terminal →
 * cleanup only; no Job → create it (deterministic name, 409 is success); otherwise derive
 * phase and conditions from the Job, its pods and the runner's reports; write status once,
 * only when it changed; requeue on the next clock that matters.
 */
import { isDeepStrictEqual } from "node:util";
import type { V1Job } from "@kubernetes/client-node";
import type { CausewayResource, FailureCode } from "@causeway/contract";
import { removeCondition, setCondition } from "@causeway/contract";
import { CONDITION_TYPES, type CausewayStatus, type Phase } from "@causeway/contract";
import { buildJob, buildSecret, childNames, isControlledBy, isJobFinished } from "./job.ts";
import { hasSucceededPod, jobOutcome } from "./outcome.ts";
import {
  REASONS,
  type Action,
  type Decision,
  type EventSpec,
  type Observed,
  type ReconcileConfig,
} from "./types.ts";

/** The status fields the operator owns; `reported` belongs to the API. */
export type OperatorStatus = Omit<CausewayStatus, "reported">;

/** Wait this long for a Job of an earlier resource with the same name to be garbage-collected. */
const CONFLICT_RETRY_MS = 5_000;
/** A Job that vanished is given this long for its delete event (and final state) to arrive. */
const JOB_MISSING_GRACE_MS = 10_000;
/** How often a pass looks again while it waits for a vanished Job. */
const JOB_MISSING_RECHECK_MS = 1_000;
/**
 * A far-off deadline (a resource TTL of days) is looked at again after at most this long: a
 * timer beyond ~24.8 days would overflow setTimeout and fire at once, and a day costs nothing.
 */
const MAX_REQUEUE_MS = 24 * 60 * 60 * 1000;
/** How much of the apiserver's message a rejected Job's condition, Event and report quote. */
const MAX_QUOTED_MESSAGE = 512;

/** Completed and Failed are final: only cleanup follows. */
export function isTerminal(phase: Phase | undefined): boolean {
  return phase === "Completed" || phase === "Failed";
}

/**
 * The Job this pass reasons about: the live one, or else the final state of this resource's
 * finished Job that its TTL deleted before a pass read the outcome (so a result is not lost and
 * the resource does not fail as JobMissing).
 */
function currentJob(obs: Observed): V1Job | null {
  if (obs.job) return obs.job;
  const deleted = obs.deletedJob;
  return deleted && isControlledBy(deleted, obs.resource) && isJobFinished(deleted) ? deleted : null;
}

/**
 * Waits (writes nothing) while a created Job has been missing for less than the grace: its
 * delete event, and with it the final state, may still be on the way. Null once the wait is over.
 */
function awaitMissingJob(obs: Observed, job: V1Job | null): Decision | null {
  if (job || !obs.resource.status?.jobName) return null;
  const since = obs.jobMissingSince ?? obs.now;
  if (obs.now.getTime() - since.getTime() >= JOB_MISSING_GRACE_MS) return null;
  return {
    actions: [],
    status: null,
    events: [],
    requeueAfterMs: JOB_MISSING_RECHECK_MS,
    jobMissingSince: since,
  };
}

/** The operator-owned part of a status. */
export function operatorStatus(status: CausewayStatus | undefined): OperatorStatus {
  const copy: CausewayStatus = structuredClone(status ?? {});
  delete copy.reported;
  return copy;
}

/** The earlier of two requeue delays (null: none). */
function earliest(a: number | null, b: number | null): number | null {
  if (a === null) return b;
  if (b === null) return a;
  return Math.min(a, b);
}

/** `text` cut to `max` characters, marked when cut. */
function clip(text: string, max: number): string {
  const flat = text.trim();
  return flat.length <= max ? flat : `${flat.slice(0, max - 1)}…`;
}

/**
 * When a terminal resource finished: the transition of its Complete or Failed condition, else
 * its completionTime, else (a status without either) its creation, the earliest it can have.
 */
export function finishedAt(resource: CausewayResource): Date {
  const status = resource.status;
  const ending = (status?.conditions ?? []).find(
    (c) => (c.type === CONDITION_TYPES.complete || c.type === CONDITION_TYPES.failed) && c.status === "True",
  );
  const text = ending?.lastTransitionTime ?? status?.completionTime;
  const at = text ? new Date(text) : new Date(resource.metadata.creationTimestamp ?? 0);
  return Number.isNaN(at.getTime()) ? new Date(0) : at;
}

/**
 * The resource's retention (`resourceTtlSecondsAfterFinished`, like the Job TTL controller's):
 * when a terminal resource is to be deleted, or null when it is kept forever.
 */
export function resourceDeleteAt(finished: Date, config: ReconcileConfig): Date | null {
  const ttl = config.resourceTtlSecondsAfterFinished ?? 0;
  return ttl > 0 ? new Date(finished.getTime() + ttl * 1000) : null;
}

/** The requeue delay until a deadline, capped (MAX_REQUEUE_MS); null without a deadline. */
function untilDeadline(deadline: Date | null, now: Date): number | null {
  if (!deadline) return null;
  return Math.min(MAX_REQUEUE_MS, Math.max(1000, deadline.getTime() - now.getTime()));
}

/**
 * A terminal resource: cleanup only. Past its TTL the resource itself goes (conditional on the
 * observed uid and resourceVersion; the garbage collector takes its Job along); before that,
 * only a Job that still runs is stopped (after a grace, so a finishing runner can exit).
 */
function cleanup(obs: Observed, job: V1Job | null, config: ReconcileConfig): Decision {
  const { resource, now } = obs;
  const deleteAt = resourceDeleteAt(finishedAt(resource), config);
  const { uid, resourceVersion } = resource.metadata;
  if (deleteAt && now.getTime() >= deleteAt.getTime() && uid && resourceVersion) {
    return {
      actions: [{ type: "deleteResource", uid, resourceVersion }],
      status: null,
      events: [],
      requeueAfterMs: null,
    };
  }
  const stop = stopJob(obs, job, config);
  return { ...stop, requeueAfterMs: earliest(stop.requeueAfterMs, untilDeadline(deleteAt, now)) };
}

/** A terminal resource's Job that still runs is deleted once the terminal grace has passed. */
function stopJob(obs: Observed, job: V1Job | null, config: ReconcileConfig): Decision {
  const { resource, now } = obs;
  const none: Decision = { actions: [], status: null, events: [], requeueAfterMs: null };
  // A Job whose runner succeeded ends by itself (its controller may be slow to say so).
  if (
    !job ||
    !isControlledBy(job, resource) ||
    isJobFinished(job) ||
    job.metadata?.deletionTimestamp ||
    hasSucceededPod(obs.pods)
  )
    return none;
  const completedAt = new Date(resource.status?.completionTime ?? now.toISOString()).getTime();
  const deleteAt = completedAt + config.terminalGraceSeconds * 1000;
  if (now.getTime() < deleteAt) return { ...none, requeueAfterMs: deleteAt - now.getTime() };
  const name = job.metadata?.name ?? "";
  return {
    ...none,
    actions: [{ type: "deleteJob", name }],
    events: [
      { type: "Normal", reason: REASONS.jobDeleted, note: `Deleted Job ${name}, which outlived the result` },
    ],
  };
}

/** Builds the next status from the previous one; every transition goes through here. */
class Next {
  readonly status: OperatorStatus;
  readonly events: EventSpec[] = [];
  readonly actions: Action[] = [];
  requeueAfterMs: number | null = null;
  /** Set when this pass must not write status at all (it is waiting on something else). */
  hold = false;
  private finishedWith: Decision["finished"];
  private readonly prevPhase: Phase | undefined;
  private readonly now: Date;
  private readonly generation: number | undefined;

  constructor(obs: Observed) {
    this.status = operatorStatus(obs.resource.status);
    this.prevPhase = this.status.phase;
    this.now = obs.now;
    this.generation = obs.resource.metadata.generation;
    if (this.generation !== undefined) this.status.observedGeneration = this.generation;
  }

  private cond(type: string, status: "True" | "False", reason: string, message: string): void {
    this.status.conditions = setCondition(
      this.status.conditions,
      { type, status, reason, message },
      this.now,
      this.generation,
    );
  }

  /**
   * Moves to a phase; only the outcome (and warnings elsewhere) becomes an Event. The steps on
   * the way (Job created, pod pending, runner running) are in the conditions with their
   * transition times, which `kubectl describe` shows: an Event for each would cost the apiserver
   * a write per step and tell an admin nothing the conditions do not.
   */
  private phase(phase: Phase, event?: EventSpec): void {
    if (event && this.status.phase !== phase) this.events.push(event);
    this.status.phase = phase;
  }

  created(jobName: string): void {
    this.status.jobName = jobName;
    this.cond(CONDITION_TYPES.created, "True", REASONS.jobCreated, `Created Job ${jobName}`);
    this.cond(CONDITION_TYPES.running, "False", REASONS.jobPending, "Waiting for the runner pod to start.");
    this.phase("Pending");
  }

  pending(reason: string, message: string): void {
    // Phases never go backwards: a retry pod waiting to start keeps the job Processing.
    if (this.prevPhase === "Processing") return;
    this.cond(CONDITION_TYPES.running, "False", reason, message);
    this.phase("Pending");
  }

  running(reason: string, message: string, startedAt: Date): void {
    this.status.startTime ??= startedAt.toISOString();
    this.cond(CONDITION_TYPES.running, "True", reason, message);
    this.phase("Processing");
  }

  completed(reason: string, message: string): void {
    this.finish();
    this.finishedWith = { outcome: "completed", reason };
    this.cond(CONDITION_TYPES.complete, "True", reason, message);
    this.phase("Completed", { type: "Normal", reason, note: message });
  }

  failed(reason: string, message: string, errorCode: FailureCode | null): void {
    this.finish();
    this.finishedWith = { outcome: "failed", reason };
    if (errorCode) {
      this.status.failure = { reason, errorCode, message };
      this.actions.push({ type: "reportFailure", errorCode, message });
    }
    this.cond(CONDITION_TYPES.failed, "True", reason, message);
    this.phase("Failed", { type: "Warning", reason, note: message });
  }

  private finish(): void {
    this.status.completionTime = this.now.toISOString();
    this.status.conditions = removeCondition(this.status.conditions, CONDITION_TYPES.running);
  }

  decision(prev: CausewayStatus | undefined): Decision {
    const changed = !this.hold && !isDeepStrictEqual(this.status, operatorStatus(prev));
    const decision: Decision = {
      actions: this.actions,
      status: changed ? this.status : null,
      events: this.events,
      requeueAfterMs: this.requeueAfterMs,
    };
    if (changed && this.finishedWith) decision.finished = this.finishedWith;
    return decision;
  }
}

/** The decision for one resource whose spec has already been validated (invalid → `specError`). */
export function reconcileRunnerJob(
  obs: Observed,
  config: ReconcileConfig,
  specError: string | null,
): Decision {
  const { resource, pods, now } = obs;
  const prev = resource.status;
  const job = currentJob(obs);
  if (isTerminal(prev?.phase)) return cleanup(obs, job, config);
  const waiting = awaitMissingJob(obs, job);
  if (waiting) return waiting;

  const next = new Next(obs);
  const names = childNames(resource.spec.kind, resource.metadata.name ?? "");
  const reported = prev?.reported?.status;

  if (specError !== null) {
    next.failed(REASONS.invalidSpec, `Invalid spec: ${specError}`, "internal_error");
  } else if (reported === "completed") {
    next.completed(REASONS.runnerReportedCompletion, "The runner reported completion.");
  } else if (reported === "failed") {
    next.failed(
      REASONS.runnerReportedFailure,
      prev?.reported?.errorMessage ?? "The runner reported a failure.",
      null,
    );
  } else if (!job) {
    if (prev?.jobName) {
      next.failed(
        REASONS.jobMissing,
        `Job ${prev.jobName} disappeared before it finished.`,
        "internal_error",
      );
    } else if (obs.jobRejected) {
      // The apiserver refused the Job for good (an admission webhook or policy, an invalid
      // field): the service is misconfigured, not the user's job, and a retry cannot help.
      const { status, message } = obs.jobRejected;
      next.failed(
        REASONS.jobRejected,
        `The apiserver rejected the runner Job ${names.job} (HTTP ${status}): ${clip(message, MAX_QUOTED_MESSAGE)}`,
        "internal_error",
      );
    } else {
      // The Secret follows the Job and is owned by it (the runtime sets the owner from the
      // created Job), so the Job's TTL or the resource's deletion removes it without a request.
      next.actions.push({
        type: "createJob",
        job: buildJob(resource, config),
        secret: buildSecret(resource, config),
      });
      next.created(names.job);
      next.requeueAfterMs = config.pendingTimeoutSeconds * 1000;
    }
  } else if (!isControlledBy(job, resource)) {
    // A Job of a deleted resource with the same name, not yet garbage-collected: wait for it.
    next.events.push({
      type: "Warning",
      reason: REASONS.jobConflict,
      note: `Job ${names.job} belongs to another owner`,
    });
    next.requeueAfterMs = CONFLICT_RETRY_MS;
    next.hold = true;
  } else {
    if (!next.status.jobName) {
      // The Job exists but no status says so: the pass that created it stopped (crash, another
      // leader, a create that met 409) before its Secret or its status write; make sure of both.
      next.actions.push({ type: "createSecret", secret: buildSecret(resource, config, job) });
      next.created(names.job);
    }
    const outcome = jobOutcome(job, pods, now, config);
    if (outcome.state === "succeeded") next.completed(outcome.reason, outcome.message);
    else if (outcome.state === "failed") next.failed(outcome.reason, outcome.message, outcome.errorCode);
    else if (outcome.state === "running" || reported === "processing") {
      const startedAt = outcome.state === "running" ? outcome.startedAt : now;
      next.running(REASONS.podRunning, "The runner is running.", startedAt);
      next.requeueAfterMs = config.resyncSeconds * 1000;
    } else {
      next.pending(outcome.reason, outcome.message);
      next.requeueAfterMs = Math.max(1000, outcome.timeoutAt.getTime() - now.getTime());
    }
  }

  if (isTerminal(next.status.phase)) {
    if (job && isControlledBy(job, resource) && !isJobFinished(job) && !hasSucceededPod(pods))
      next.requeueAfterMs = config.terminalGraceSeconds * 1000;
    // The echo of this pass's status write runs no pass: the TTL's clock starts here.
    const deleteAt = resourceDeleteAt(finishedAt({ ...resource, status: next.status }), config);
    next.requeueAfterMs = earliest(next.requeueAfterMs, untilDeadline(deleteAt, now));
  }
  return next.decision(prev);
}
