/**
 * The runner Job and its callback Secret for a resource. Names are deterministic so a
 * repeated or concurrent create (crash mid-reconcile, two leaders) hits 409 instead of
 * making a second Job.
 */
import { createHash } from "node:crypto";
import type {
  V1EnvVar,
  V1Job,
  V1JobSpec,
  V1ObjectMeta,
  V1OwnerReference,
  V1Secret,
} from "@kubernetes/client-node";
import { callbackUrl, deriveCallbackKey, RUNNER_ENV, RUNNER_EXIT, type JobKind } from "@causeway/contract";
import { ANNOTATIONS, API_VERSION, LABELS, RESOURCES, type CausewayResource } from "@causeway/contract";
import type { ReconcileConfig } from "./types.ts";

/** The container name; podFailurePolicy rules refer to it. */
export const RUNNER_CONTAINER = "runner";
/** The Secret key holding the per-job callback key. */
export const CALLBACK_KEY_FIELD = "callback-key";
/** Where the callback Secret is mounted in the runner container (read-only, owner and fsGroup only). */
export const CALLBACK_KEY_DIR = "/var/run/causeway/callback";
/** The runner's entry point, relative to the image's working directory (the app root). */
export const RUNNER_COMMAND = ["node", "runner/src/main.ts"];

const PREFIX: Record<JobKind, string> = { prediction: "cw-pred", causal_analysis: "cw-ca" };
const MAX_JOB_NAME = 63 - "-callback".length;

/** The child names of a resource: `cw-pred-<name>` / `cw-ca-<name>` (hashed down when too long). */
export function childNames(kind: JobKind, resourceName: string): { job: string; secret: string } {
  let job = `${PREFIX[kind]}-${resourceName}`;
  if (job.length > MAX_JOB_NAME) {
    const hash = createHash("sha256").update(resourceName).digest("hex").slice(0, 10);
    job = `${job.slice(0, MAX_JOB_NAME - 11).replace(/[-.]+$/, "")}-${hash}`;
  }
  return { job, secret: `${job}-callback` };
}

/** The controller reference that makes the garbage collector delete children with the resource. */
export function ownerReference(resource: CausewayResource): V1OwnerReference {
  return {
    apiVersion: API_VERSION,
    kind: resource.kind,
    name: resource.metadata.name ?? "",
    uid: resource.metadata.uid ?? "",
    controller: true,
    blockOwnerDeletion: true,
  };
}

/** True when `child` is controlled by this very resource (same uid, not an earlier one of the same name). */
export function isControlledBy(child: { metadata?: V1ObjectMeta }, resource: CausewayResource): boolean {
  const ref = child.metadata?.ownerReferences?.find((r) => r.controller === true);
  return ref !== undefined && ref.uid === resource.metadata.uid;
}

/**
 * The conditions that end a Job: `Complete` and `Failed`, and the ones the Job controller
 * (>= 1.31) sets as soon as the end is decided, while the last pods still terminate
 * (`SuccessCriteriaMet` before `Complete`, `FailureTarget` before `Failed`).
 */
const ENDING = new Set(["Complete", "Failed", "SuccessCriteriaMet", "FailureTarget"]);

/** True when the Job has finished or its end is decided, either way: nothing is left to stop. */
export function isJobFinished(job: V1Job): boolean {
  return (job.status?.conditions ?? []).some((c) => ENDING.has(c.type) && c.status === "True");
}

function childMeta(resource: CausewayResource, name: string): V1ObjectMeta {
  const kind = resource.spec.kind;
  return {
    name,
    namespace: resource.metadata.namespace,
    labels: {
      [LABELS.kind]: RESOURCES[kind].singular,
      [LABELS.resource]: resource.metadata.name ?? "",
      [LABELS.managedBy]: "causeway-operator",
      "app.kubernetes.io/name": "causeway-runner",
    },
    ownerReferences: [ownerReference(resource)],
  };
}

/**
 * The reference that makes a Job own its callback Secret: the garbage collector deletes the
 * Secret with the Job (its TTL after it finished, or the resource's deletion), so no request of
 * the operator's is needed to remove the key. Not a controller reference and not blocking: the
 * Secret is the Job's data, not something that manages it.
 */
export function jobOwnerReference(job: V1Job): V1OwnerReference {
  return {
    apiVersion: "batch/v1",
    kind: "Job",
    name: job.metadata?.name ?? "",
    uid: job.metadata?.uid ?? "",
  };
}

/**
 * The per-job Secret with the derived callback key, owned by its Job when the Job is given
 * (the runtime adds the reference to the Job it has just created otherwise).
 */
export function buildSecret(resource: CausewayResource, config: ReconcileConfig, job?: V1Job): V1Secret {
  const { secret } = childNames(resource.spec.kind, resource.metadata.name ?? "");
  const metadata = childMeta(resource, secret);
  metadata.ownerReferences = job ? [jobOwnerReference(job)] : [];
  return {
    apiVersion: "v1",
    kind: "Secret",
    metadata,
    type: "Opaque",
    stringData: {
      [CALLBACK_KEY_FIELD]: deriveCallbackKey(config.callbackServerSecret, resource.spec.job_id),
    },
  };
}

function runnerEnv(resource: CausewayResource, config: ReconcileConfig): V1EnvVar[] {
  const spec = { ...resource.spec, kind: resource.spec.kind, job_id: resource.spec.job_id };
  const env: V1EnvVar[] = [
    { name: RUNNER_ENV.jobSpec, value: JSON.stringify(spec) },
    { name: RUNNER_ENV.callbackUrl, value: callbackUrl(config.callbackBaseUrl, spec.kind, spec.job_id) },
    // A file of the mounted Secret, not an env value: env shows in `kubectl describe` and dumps.
    { name: RUNNER_ENV.callbackKeyFile, value: `${CALLBACK_KEY_DIR}/${CALLBACK_KEY_FIELD}` },
    // The pod name identifies the attempt: a replacement pod gets a new one.
    { name: RUNNER_ENV.attempt, valueFrom: { fieldRef: { fieldPath: "metadata.name" } } },
    { name: "HOME", value: "/tmp" },
    ...config.runnerEnv,
  ];
  const annotations = resource.metadata.annotations ?? {};
  const traceparent = annotations[ANNOTATIONS.traceparent];
  const tracestate = annotations[ANNOTATIONS.tracestate];
  if (traceparent) env.push({ name: "TRACEPARENT", value: traceparent });
  if (tracestate) env.push({ name: "TRACESTATE", value: tracestate });
  return env;
}

/** The runner Job for a resource. */
export function buildJob(resource: CausewayResource, config: ReconcileConfig): V1Job {
  const names = childNames(resource.spec.kind, resource.metadata.name ?? "");
  const meta = childMeta(resource, names.job);
  const spec: V1JobSpec = {
    backoffLimit: config.backoffLimit,
    activeDeadlineSeconds: config.activeDeadlineSeconds,
    ttlSecondsAfterFinished: config.ttlSecondsAfterFinished,
    template: {
      metadata: { labels: meta.labels },
      spec: {
        restartPolicy: "Never",
        serviceAccountName: config.runnerServiceAccount,
        automountServiceAccountToken: false,
        // A private registry's credentials (RUNNER_IMAGE_PULL_SECRETS); without them every pod
        // of a private image would wait in ImagePullBackOff until its pending timeout.
        imagePullSecrets:
          config.imagePullSecrets && config.imagePullSecrets.length > 0
            ? config.imagePullSecrets.map((name) => ({ name }))
            : undefined,
        enableServiceLinks: false,
        securityContext: {
          runAsNonRoot: true,
          runAsUser: config.runAsUser,
          runAsGroup: config.runAsUser,
          fsGroup: config.runAsUser,
          seccompProfile: { type: "RuntimeDefault" },
        },
        nodeSelector: Object.keys(config.nodeSelector).length > 0 ? config.nodeSelector : undefined,
        tolerations: config.tolerations.length > 0 ? config.tolerations : undefined,
        containers: [
          {
            name: RUNNER_CONTAINER,
            image: config.runnerImage,
            imagePullPolicy: config.imagePullPolicy,
            command: RUNNER_COMMAND,
            env: runnerEnv(resource, config),
            resources: config.resources,
            terminationMessagePolicy: "FallbackToLogsOnError",
            securityContext: {
              allowPrivilegeEscalation: false,
              readOnlyRootFilesystem: true,
              runAsNonRoot: true,
              capabilities: { drop: ["ALL"] },
            },
            volumeMounts: [
              { name: "tmp", mountPath: "/tmp" },
              { name: "callback", mountPath: CALLBACK_KEY_DIR, readOnly: true },
            ],
          },
        ],
        volumes: [
          { name: "tmp", emptyDir: { sizeLimit: config.tmpSizeLimit } },
          {
            name: "callback",
            secret: {
              secretName: names.secret,
              items: [{ key: CALLBACK_KEY_FIELD, path: CALLBACK_KEY_FIELD }],
              defaultMode: 0o440,
            },
          },
        ],
      },
    },
  };
  if (config.podFailurePolicy) {
    spec.podFailurePolicy = {
      rules: [
        // A failure the runner reported is final: do not burn retries on it.
        {
          action: "FailJob",
          onExitCodes: { containerName: RUNNER_CONTAINER, operator: "In", values: [RUNNER_EXIT.jobFailed] },
        },
        // Evictions and preemptions are not the job's fault.
        { action: "Ignore", onPodConditions: [{ type: "DisruptionTarget", status: "True" }] },
      ],
    };
  }
  if (config.podReplacementPolicy) spec.podReplacementPolicy = "Failed";
  return { apiVersion: "batch/v1", kind: "Job", metadata: meta, spec };
}
