/**
 * Inputs and outputs of the pure reconcile functions. A reconcile pass observes
 * (resource, job, deleted job, pods, now, config) and returns a Decision; the runtime carries
 * it out and remembers for the next pass only what the Decision asks it to.
 */
import type { FailureCode } from "@causeway/contract";
import type {
  V1EnvVar,
  V1Job,
  V1Pod,
  V1ResourceRequirements,
  V1Secret,
  V1Toleration,
} from "@kubernetes/client-node";
import type { CausewayResource, CausewayStatus } from "@causeway/contract";

/** Settings of the runner Jobs, from the operator's configuration (operator/src/config.ts). */
export interface ReconcileConfig {
  runnerImage: string;
  imagePullPolicy: "Always" | "IfNotPresent" | "Never";
  /** The runner pods' ServiceAccount (no RBAC; its token is not mounted). */
  runnerServiceAccount: string | undefined;
  backoffLimit: number;
  activeDeadlineSeconds: number;
  ttlSecondsAfterFinished: number;
  /** How long a runner pod may stay Pending (unschedulable, image pull) before the job fails. */
  pendingTimeoutSeconds: number;
  /** How long an active Job may outlive its resource's terminal state before it is deleted. */
  terminalGraceSeconds: number;
  /** Requeue interval for running jobs: the safety net behind the watches. */
  resyncSeconds: number;
  resources: V1ResourceRequirements;
  /** Base URL of the API's internal callback route as runner pods reach it (no trailing slash). */
  callbackBaseUrl: string;
  /** The server secret the per-job callback keys are derived from (shared with the API). */
  callbackServerSecret: string;
  /** Storage and other plain env of the runner (S3 settings, secret refs for credentials). */
  runnerEnv: V1EnvVar[];
  /** Set when the server supports Job podFailurePolicy (>= 1.26). */
  podFailurePolicy: boolean;
  /** Set when the server supports podReplacementPolicy (>= 1.29). */
  podReplacementPolicy: boolean;
  runAsUser: number;
  tmpSizeLimit: string;
  nodeSelector: Record<string, string>;
  tolerations: V1Toleration[];
  /**
   * Secrets (kubernetes.io/dockerconfigjson) the runner pods pull their image with, by name;
   * absent or empty: none (`RUNNER_IMAGE_PULL_SECRETS`).
   */
  imagePullSecrets?: readonly string[];
  /**
   * Delete a resource this many seconds after it finished (Complete or Failed), like the Job
   * TTL controller does for Jobs; absent or 0: keep it forever (`RESOURCE_TTL_SECONDS_AFTER_FINISHED`).
   */
  resourceTtlSecondsAfterFinished?: number;
}

/** The apiserver's permanent refusal of a Job create (400, 403, 422): retrying cannot help. */
export interface JobRejection {
  /** The HTTP status of the answer. */
  status: number;
  /** The apiserver's message (a Status object's `message`, e.g. an admission webhook's reason). */
  message: string;
}

/** What one reconcile pass sees. */
export interface Observed<R extends CausewayResource = CausewayResource> {
  resource: R;
  /** The resource's Job from a live read, never from a cache miss. */
  job: V1Job | null;
  /**
   * The last state the Job informer saw of a deleted Job with this name (its delete event),
   * whoever owned it and however it ended; absent when none is remembered.
   */
  deletedJob?: V1Job | null;
  /**
   * When an earlier pass first found this resource's created Job missing, as handed back from
   * that pass's `Decision.jobMissingSince`; absent when no pass is waiting for it.
   */
  jobMissingSince?: Date | null;
  /**
   * Set when this pass's own Job create was refused for good (a round of the same pass
   * observes again with it); absent otherwise.
   */
  jobRejected?: JobRejection | null;
  /** Pods of the resource's Job (from the pod informer). */
  pods: readonly V1Pod[];
  now: Date;
}

/** A side effect for the runtime; each is idempotent (409 on create and 404 on delete count as success). */
export type Action =
  /** The callback Secret of a Job that exists (its owner reference names that Job). */
  | { type: "createSecret"; secret: V1Secret }
  /** The Job, then its callback Secret, owned by the created Job (the runtime adds the reference). */
  | { type: "createJob"; job: V1Job; secret: V1Secret }
  | { type: "deleteJob"; name: string }
  /**
   * Delete the resource itself (its TTL after it finished), conditional on the observed uid and
   * resourceVersion: a newer version (409) is decided again, a recreated resource of the same
   * name is never deleted, and 404 counts as done.
   */
  | { type: "deleteResource"; uid: string; resourceVersion: string }
  /**
   * Tell the API about a failure only the operator can see (OOM, deadline, a pod that never
   * started), through the same signed callback a runner uses, so PostgreSQL learns it at once.
   */
  | { type: "reportFailure"; errorCode: FailureCode; message: string };

/** A Kubernetes Event about the resource. */
export interface EventSpec {
  type: "Normal" | "Warning";
  reason: string;
  note: string;
}

/** The outcome of one pass. `status` is set only when it differs from the observed one. */
export interface Decision {
  actions: Action[];
  status: CausewayStatus | null;
  events: EventSpec[];
  /** Reconcile again after this many milliseconds (the TTL/timeout clock), if set. */
  requeueAfterMs: number | null;
  /** Set while the pass waits for a vanished Job: the runtime passes it back in the next `Observed`. */
  jobMissingSince?: Date;
  /** Set when this pass moves the resource into a terminal phase (for the jobs-finished metric). */
  finished?: { outcome: "completed" | "failed"; reason: string };
}

/** CamelCase reasons of conditions, events and `status.failure` (also the metrics' `reason` label). */
export const REASONS = {
  jobCreated: "JobCreated",
  jobPending: "JobPending",
  podRunning: "PodRunning",
  jobSucceeded: "JobSucceeded",
  runnerReportedCompletion: "RunnerReportedCompletion",
  runnerReportedFailure: "RunnerReportedFailure",
  runnerFailed: "RunnerFailed",
  runnerCrashed: "RunnerCrashed",
  oomKilled: "OOMKilled",
  deadlineExceeded: "DeadlineExceeded",
  imagePullFailed: "ImagePullFailed",
  podUnschedulable: "PodUnschedulable",
  podPendingTimeout: "PodPendingTimeout",
  podEvicted: "PodEvicted",
  jobMissing: "JobMissing",
  invalidSpec: "InvalidSpec",
  jobConflict: "JobConflict",
  jobDeleted: "JobDeleted",
  jobRejected: "JobRejected",
} as const;
export type Reason = (typeof REASONS)[keyof typeof REASONS];
