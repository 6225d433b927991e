/**
 * Fluent builders for operator tests (after kueue's MakeWorkload and trainer's wrappers):
 * resources, their runner Jobs and pods, and a reconcile config.
 */
import { KubeConfig, type V1Job, type V1Pod } from "@kubernetes/client-node";
import type { CausalAnalysisJobSpec, PredictionJobSpec } from "@causeway/contract";
import {
  API_VERSION,
  type CausalAnalysisResource,
  type CausewayStatus,
  type Condition,
  type PredictionResource,
  type ReportedStatus,
} from "@causeway/contract";
import { buildJob, RUNNER_CONTAINER } from "../../operator/src/reconcile/job.ts";
import type { Observed, ReconcileConfig } from "../../operator/src/reconcile/types.ts";

export const T0 = new Date("2026-01-01T00:00:00.000Z");
/** `T0` plus seconds. */
export const at = (seconds: number): Date => new Date(T0.getTime() + seconds * 1000);

export const JOB_ID = "2b7e1516-28ae-4d2a-a6d2-abf715880900";
export const ACCOUNT_ID = "9f8e7d6c-5b4a-4c3d-8e1f-0a1b2c3d4e5f";
export const PREDICTION_ID = "0c6b1e2a-3f4d-4e5f-8a9b-0c1d2e3f4a5b";

/** A reconcile config with small, round numbers. */
export function testConfig(overrides: Partial<ReconcileConfig> = {}): ReconcileConfig {
  return {
    runnerImage: "registry.example/causeway:1.0.0",
    imagePullPolicy: "IfNotPresent",
    runnerServiceAccount: "causeway-runner",
    backoffLimit: 2,
    activeDeadlineSeconds: 3600,
    ttlSecondsAfterFinished: 600,
    pendingTimeoutSeconds: 300,
    terminalGraceSeconds: 30,
    resyncSeconds: 60,
    resources: { requests: { cpu: "1", memory: "2Gi" }, limits: { memory: "4Gi" } },
    callbackBaseUrl: "http://causeway-api-callbacks:8080",
    callbackServerSecret: "test-server-secret",
    runnerEnv: [{ name: "CAUSEWAY_STORAGE", value: "s3" }],
    podFailurePolicy: true,
    podReplacementPolicy: false,
    runAsUser: 1000,
    tmpSizeLimit: "1Gi",
    nodeSelector: {},
    tolerations: [],
    ...overrides,
  };
}

/** A valid prediction job spec (target_id, merged input). */
export function predictionSpec(overrides: Partial<PredictionJobSpec> = {}): PredictionJobSpec {
  return {
    kind: "prediction",
    job_id: JOB_ID,
    account_id: ACCOUNT_ID,
    job_type: "target_id",
    model_version: "v1",
    target: null,
    inputs: { shape: "merged", dataset_key: `inputs/${JOB_ID}/dataset.h5ad` },
    params: {
      deg_significance_fold: 1,
      min_mean_expression: 0.1,
      n_randomizations: 0,
      top_n_causal_degs: 1000,
      min_path_fraction: 0.1,
      min_path_probability: 0.0001,
      max_path_length: null,
      min_degs_fold_uniform: null,
      prefix: null,
    },
    output_prefix: `outputs/${JOB_ID}/`,
    ...overrides,
  };
}

/** A valid causal-analysis job spec. */
export function causalAnalysisSpec(overrides: Partial<CausalAnalysisJobSpec> = {}): CausalAnalysisJobSpec {
  return {
    kind: "causal_analysis",
    job_id: JOB_ID,
    account_id: ACCOUNT_ID,
    prediction_id: PREDICTION_ID,
    model_version: "v1",
    target: "STAT1|PROTEIN",
    prediction_artifacts: { "mapped_degs.json": `outputs/${PREDICTION_ID}/mapped_degs.json` },
    params: {
      top_n_causal_degs: 1000,
      min_path_fraction: 0.1,
      min_path_probability: 0.0001,
      max_path_length: null,
      min_degs_fold_uniform: null,
      prefix: null,
    },
    metadata: {},
    output_prefix: `outputs/${JOB_ID}/`,
    ...overrides,
  };
}

/** Fluent builder of a Prediction resource. */
export class PredictionBuilder {
  private readonly r: PredictionResource;

  constructor(spec: Partial<PredictionJobSpec> = {}) {
    this.r = {
      apiVersion: API_VERSION,
      kind: "Prediction",
      metadata: { name: JOB_ID, namespace: "causeway", uid: "uid-1", generation: 1, creationTimestamp: T0 },
      spec: predictionSpec(spec),
    };
  }

  uid(uid: string): this {
    this.r.metadata.uid = uid;
    return this;
  }

  annotate(key: string, value: string): this {
    this.r.metadata.annotations = { ...this.r.metadata.annotations, [key]: value };
    return this;
  }

  spec(patch: Partial<PredictionJobSpec>): this {
    Object.assign(this.r.spec, patch);
    return this;
  }

  status(status: CausewayStatus): this {
    this.r.status = { ...this.r.status, ...status };
    return this;
  }

  /** A status as the operator writes it right after creating the Job. */
  created(): this {
    return this.status({
      observedGeneration: 1,
      phase: "Pending",
      jobName: `cw-pred-${JOB_ID}`,
      conditions: [
        cond("Created", "True", "JobCreated", `Created Job cw-pred-${JOB_ID}`),
        cond("Running", "False", "JobPending", "Waiting for the runner pod to start."),
      ],
    });
  }

  reported(reported: ReportedStatus): this {
    return this.status({ reported });
  }

  build(): PredictionResource {
    return structuredClone(this.r);
  }
}

/** A new Prediction builder. */
export const aPrediction = (spec: Partial<PredictionJobSpec> = {}): PredictionBuilder =>
  new PredictionBuilder(spec);

/** A CausalAnalysis resource. */
export function aCausalAnalysis(spec: Partial<CausalAnalysisJobSpec> = {}): CausalAnalysisResource {
  return {
    apiVersion: API_VERSION,
    kind: "CausalAnalysis",
    metadata: { name: JOB_ID, namespace: "causeway", uid: "uid-ca", generation: 1, creationTimestamp: T0 },
    spec: causalAnalysisSpec(spec),
  };
}

/** A condition at T0. */
export function cond(type: string, status: "True" | "False", reason: string, message: string): Condition {
  return { type, status, reason, message, lastTransitionTime: T0.toISOString(), observedGeneration: 1 };
}

/** Fluent builder of the runner Job the operator would create for a resource. */
export class JobBuilder {
  private readonly job: V1Job;

  constructor(resource: PredictionResource | CausalAnalysisResource, config: ReconcileConfig = testConfig()) {
    this.job = buildJob(resource, config);
    this.job.metadata = { ...this.job.metadata, uid: "job-uid-1", creationTimestamp: T0 };
    this.job.status = {};
  }

  ownedBy(uid: string): this {
    for (const ref of this.job.metadata?.ownerReferences ?? []) ref.uid = uid;
    return this;
  }

  condition(
    type: "Complete" | "Failed" | "FailureTarget" | "SuccessCriteriaMet",
    reason = "",
    message = "",
  ): this {
    this.job.status = { ...this.job.status, conditions: [{ type, status: "True", reason, message }] };
    return this;
  }

  build(): V1Job {
    return structuredClone(this.job);
  }
}

export const aJob = (
  resource: PredictionResource | CausalAnalysisResource,
  config?: ReconcileConfig,
): JobBuilder => new JobBuilder(resource, config);

/** Fluent builder of a runner pod. */
export class PodBuilder {
  private readonly pod: V1Pod;

  constructor(name = `cw-pred-${JOB_ID}-abcde`, created: Date = T0) {
    this.pod = {
      metadata: { name, creationTimestamp: created },
      spec: { containers: [{ name: RUNNER_CONTAINER, resources: { limits: { memory: "4Gi" } } }] },
      status: { phase: "Pending" },
    };
  }

  running(startedAt: Date = T0): this {
    this.pod.status = {
      phase: "Running",
      startTime: startedAt,
      containerStatuses: [runnerStatus({ running: { startedAt } })],
    };
    return this;
  }

  terminated(exitCode: number, reason = "Error", message = ""): this {
    this.pod.status = {
      phase: exitCode === 0 ? "Succeeded" : "Failed",
      startTime: T0,
      containerStatuses: [runnerStatus({ terminated: { exitCode, reason, message } })],
    };
    return this;
  }

  waiting(reason: string, message: string): this {
    this.pod.status = {
      phase: "Pending",
      containerStatuses: [runnerStatus({ waiting: { reason, message } })],
    };
    return this;
  }

  unschedulable(message: string): this {
    this.pod.status = {
      phase: "Pending",
      conditions: [{ type: "PodScheduled", status: "False", reason: "Unschedulable", message }],
    };
    return this;
  }

  evicted(message: string): this {
    this.pod.status = { phase: "Failed", reason: "Evicted", message };
    return this;
  }

  build(): V1Pod {
    return structuredClone(this.pod);
  }
}

export const aPod = (name?: string, created?: Date): PodBuilder => new PodBuilder(name, created);

function runnerStatus(
  state: NonNullable<NonNullable<V1Pod["status"]>["containerStatuses"]>[number]["state"],
) {
  return { name: RUNNER_CONTAINER, image: "img", imageID: "", ready: false, restartCount: 0, state };
}

/** What a reconcile pass sees: no Job, no deleted Job, no pods, at T0, unless overridden. */
export function observed<R extends PredictionResource | CausalAnalysisResource>(
  resource: R,
  overrides: Partial<Omit<Observed<R>, "resource">> = {},
): Observed<R> {
  return { resource, job: null, deletedJob: null, jobMissingSince: null, pods: [], now: T0, ...overrides };
}

/** A kubeconfig for a Controller whose informers are never started (its apiserver is a fake gateway). */
export function unreachableKubeConfig(): KubeConfig {
  const kc = new KubeConfig();
  kc.loadFromOptions({
    clusters: [{ name: "c", server: "https://127.0.0.1:1", skipTLSVerify: true }],
    users: [{ name: "u", token: "t" }],
    contexts: [{ name: "x", cluster: "c", user: "u" }],
    currentContext: "x",
  });
  return kc;
}
