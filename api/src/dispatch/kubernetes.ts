/**
 * Cluster-mode Dispatcher: a job becomes a Prediction or CausalAnalysis custom resource whose
 * spec is the job spec; the operator turns it into a Kubernetes Job. Runner callbacks still go
 * to the API, which mirrors them into the resource's `status.reported` (its only status field,
 * written with server-side apply under the `causeway-api` field manager; see crds/README.md).
 *
 * Mirroring never slows a callback down: the latest status per job is queued and flushed in
 * the background with retries. If the apiserver stays unreachable the update is dropped with a
 * warning; nothing is lost that matters, because the operator derives the phase from the Job
 * itself (success, failure, OOM, deadline) and the next callback's mirror carries the full,
 * current reported state again (each apply is complete, not a delta).
 */
import { readFileSync } from "node:fs";
import { CustomObjectsApi, type KubeConfig, PatchStrategy, setHeaderOptions } from "@kubernetes/client-node";
import { PooledKubeConfig } from "@causeway/contract/kube";
import { pino, type Logger } from "pino";
import type { JobKind, JobSpec } from "@causeway/contract";
import {
  ANNOTATIONS,
  API_VERSION,
  statusApply,
  GROUP,
  RESOURCES,
  VERSION,
  resourceName,
  type ReportedStatus,
} from "@causeway/contract";
import type { Config } from "../config.ts";
import type { DispatchContext, Dispatcher, MirroredStatus } from "./dispatcher.ts";
import { contextFromTraceparent, inSpan, traceContextOf } from "@causeway/contract/telemetry";

/** The two calls the dispatcher makes, so tests can fake the apiserver. */
export interface ResourceClient {
  create(namespace: string, plural: string, body: object): Promise<void>;
  applyStatus(namespace: string, plural: string, name: string, body: object): Promise<void>;
}

export interface KubernetesDispatcherOptions {
  client: ResourceClient;
  namespace: string;
  log: Logger;
  /** Delays between mirror attempts; the length is the number of retries. */
  retryDelaysMs?: number[];
  sleep?: (ms: number) => Promise<void>;
}

const statusCode = (err: unknown): number | undefined =>
  typeof err === "object" &&
  err !== null &&
  "code" in err &&
  typeof (err as { code: unknown }).code === "number"
    ? (err as { code: number }).code
    : undefined;

/** Errors worth retrying: network failures (no status), conflicts, throttling and server errors. */
const retryable = (err: unknown): boolean => {
  const code = statusCode(err);
  return code === undefined || code === 409 || code === 429 || code >= 500;
};

/** The CRD's bounds for reported fields (crds/src/resources.ts ReportedStatus). */
export function toReported(s: MirroredStatus): ReportedStatus {
  return {
    status: s.status,
    processingStep: s.processing_step === null ? null : s.processing_step.slice(0, 64),
    progressPct: s.progress_pct === null ? null : Math.max(0, Math.min(100, Math.round(s.progress_pct))),
    errorCode: s.error_code !== null && /^[a-z][a-z0-9_]{0,63}$/.test(s.error_code) ? s.error_code : null,
    errorMessage: s.error_message === null ? null : s.error_message.slice(0, 4000),
  };
}

/** The Dispatcher over custom resources. */
export class KubernetesDispatcher implements Dispatcher {
  private readonly o: Required<KubernetesDispatcherOptions>;
  private readonly pending = new Map<string, { kind: JobKind; jobId: string; status: MirroredStatus }>();
  private flushing: Promise<void> | null = null;
  private closed = false;

  constructor(options: KubernetesDispatcherOptions) {
    this.o = {
      retryDelaysMs: [200, 500, 1000, 2000, 5000, 10_000],
      sleep: (ms) => new Promise((resolve) => setTimeout(resolve, ms).unref()),
      ...options,
    };
  }

  /** Creates the resource; an existing one (409) is success, so a retried submission is harmless. */
  async dispatch(spec: JobSpec, ctx: DispatchContext): Promise<void> {
    // The resource carries this span's context, so the operator's reconcile continues the trace.
    await inSpan(
      "dispatch.create_resource",
      // A traceparent this process cannot parse is still passed on as it came.
      async (span) => this.create(spec, traceContextOf(span).traceparent ?? ctx.traceparent),
      contextFromTraceparent(ctx.traceparent),
    );
  }

  private async create(spec: JobSpec, traceparent: string | undefined): Promise<void> {
    const names = RESOURCES[spec.kind];
    const body = {
      apiVersion: API_VERSION,
      kind: names.kind,
      metadata: {
        name: resourceName(spec.job_id),
        namespace: this.o.namespace,
        labels: { "app.kubernetes.io/part-of": "causeway", "causeway.io/account": spec.account_id },
        ...(traceparent ? { annotations: { [ANNOTATIONS.traceparent]: traceparent } } : {}),
      },
      spec,
    };
    for (let attempt = 0; ; attempt++) {
      try {
        await this.o.client.create(this.o.namespace, names.plural, body);
        return;
      } catch (err) {
        if (statusCode(err) === 409) return;
        if (!retryable(err) || attempt >= 2) throw err;
        await this.o.sleep(this.o.retryDelaysMs[attempt] ?? 1000);
      }
    }
  }

  /** Queues the latest status of a job for the background flush; returns at once. */
  async mirrorStatus(job: { kind: JobKind; job_id: string }, status: MirroredStatus): Promise<void> {
    if (this.closed) return;
    this.pending.set(`${job.kind}/${job.job_id}`, { kind: job.kind, jobId: job.job_id, status });
    this.flushing ??= this.flush().finally(() => {
      this.flushing = null;
    });
  }

  /** Waits for queued mirrors (bounded by their retries), then stops accepting more. */
  async close(): Promise<void> {
    while (this.flushing) await this.flushing;
    this.closed = true;
  }

  private async flush(): Promise<void> {
    while (this.pending.size > 0) {
      const batch = [...this.pending.entries()];
      this.pending.clear();
      await Promise.all(batch.map(([, item]) => this.mirrorOne(item.kind, item.jobId, item.status)));
    }
  }

  private async mirrorOne(kind: JobKind, jobId: string, status: MirroredStatus): Promise<void> {
    const names = RESOURCES[kind];
    const name = resourceName(jobId);
    const body = {
      apiVersion: API_VERSION,
      kind: names.kind,
      metadata: { name, namespace: this.o.namespace },
      status: { reported: toReported(status) },
    };
    for (let attempt = 0; ; attempt++) {
      // A newer status for the same job arrived meanwhile: it supersedes this one.
      if (this.pending.has(`${kind}/${jobId}`)) return;
      try {
        await this.o.client.applyStatus(this.o.namespace, names.plural, name, body);
        return;
      } catch (err) {
        if (statusCode(err) === 404) return; // the resource is gone: nothing to mirror into
        const delay = this.o.retryDelaysMs[attempt];
        if (!retryable(err) || delay === undefined) {
          this.o.log.warn(
            { err, kind, job_id: jobId, attempts: attempt + 1 },
            "could not mirror job status to its custom resource",
          );
          return;
        }
        await this.o.sleep(delay);
      }
    }
  }
}

/** A ResourceClient on @kubernetes/client-node. */
export function clientNodeResources(kc: KubeConfig): ResourceClient {
  const api = kc.makeApiClient(CustomObjectsApi);
  const apply = setHeaderOptions("Content-Type", PatchStrategy.ServerSideApply);
  return {
    async create(namespace, plural, body) {
      await api.createNamespacedCustomObject({ group: GROUP, version: VERSION, namespace, plural, body });
    },
    async applyStatus(namespace, plural, name, body) {
      await api.patchNamespacedCustomObjectStatus(
        statusApply({ namespace, plural, name }, body, "api"),
        apply,
      );
    },
  };
}

/** The namespace for resources: CAUSEWAY_NAMESPACE, else the kubeconfig context's, else the pod's own. */
export function resolveNamespace(kc: KubeConfig, env: NodeJS.ProcessEnv = process.env): string {
  if (env.CAUSEWAY_NAMESPACE) return env.CAUSEWAY_NAMESPACE;
  const fromContext = kc.getContextObject(kc.getCurrentContext())?.namespace;
  if (fromContext) return fromContext;
  try {
    return (
      readFileSync("/var/run/secrets/kubernetes.io/serviceaccount/namespace", "utf8").trim() || "default"
    );
  } catch {
    return "default";
  }
}

/**
 * The API server connection: in-cluster config, or KUBECONFIG outside; one connection pool for
 * every request (client-node alone builds one per request).
 */
export function apiServerConfig(): KubeConfig {
  const kc = new PooledKubeConfig();
  kc.loadFromDefault();
  return kc;
}

/** Entry point used by create-dispatcher.ts. */
export async function createKubernetesDispatcher(config: Config): Promise<Dispatcher> {
  const kc = apiServerConfig();
  const log = pino({ level: config.logLevel, base: { component: "kubernetes-dispatcher" } });
  return new KubernetesDispatcher({ client: clientNodeResources(kc), namespace: resolveNamespace(kc), log });
}
