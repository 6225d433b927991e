/**
 * The informer caches a pass reads (controller-runtime's cache): one informer per resource kind,
 * one for the operator's Jobs and one for their pods (both by the managed-by label), each
 * trimmed to what the decisions read (cache-trim.ts) and hardened (informer.ts). Their watch
 * events go to the handlers the controller passes in.
 */
import type {
  KubeConfig,
  KubernetesListObject,
  KubernetesObject,
  V1Job,
  V1Pod,
} from "@kubernetes/client-node";
import { BatchV1Api, CoreV1Api, CustomObjectsApi } from "@kubernetes/client-node";
import type { Logger } from "pino";
import { GROUP, LABELS, RESOURCES, VERSION, type CausewayResource, type JobKind } from "@causeway/contract";
import { trimJob, trimMeta, trimPod } from "./cache-trim.ts";
import type { Clock } from "./clock.ts";
import { ResilientInformer, type InformerEvent } from "./informer.ts";
import type { OperatorMetrics } from "./metrics.ts";

export const KINDS: JobKind[] = ["prediction", "causal_analysis"];

/** What a pass reads from the informers' caches (tests pass their own). */
export interface ControllerCache {
  resource(kind: JobKind, namespace: string, name: string): CausewayResource | undefined;
  job(namespace: string, name: string): V1Job | undefined;
}

/** Options of {@link InformerCaches}. */
export interface CacheOptions {
  kc: KubeConfig;
  namespace: string;
  clock: Clock;
  log: Logger;
  metrics: OperatorMetrics;
  relistIntervalMs: number;
  staleAfterMs: number;
  onResource: (kind: JobKind, obj: KubernetesObject, type: InformerEvent) => void;
  onJob: (job: V1Job, type: InformerEvent) => void;
  onPod: (pod: V1Pod, type: InformerEvent) => void;
}

export class InformerCaches implements ControllerCache {
  private readonly informers: Pick<
    ResilientInformer<KubernetesObject>,
    "start" | "stop" | "synced" | "isStale"
  >[] = [];
  private readonly o: CacheOptions;
  private readonly resources = new Map<JobKind, ResilientInformer<KubernetesObject>>();
  private readonly jobs: ResilientInformer<V1Job>;
  private readonly pods: ResilientInformer<V1Pod>;

  constructor(options: CacheOptions) {
    this.o = options;
    const custom = options.kc.makeApiClient(CustomObjectsApi);
    const batch = options.kc.makeApiClient(BatchV1Api);
    const core = options.kc.makeApiClient(CoreV1Api);
    const ns = options.namespace;
    for (const kind of KINDS) {
      const plural = RESOURCES[kind].plural;
      const list = async () => {
        const list: unknown = await custom.listNamespacedCustomObject({
          group: GROUP,
          version: VERSION,
          namespace: ns,
          plural,
        });
        return list as KubernetesListObject<KubernetesObject>;
      };
      const path = `/apis/${GROUP}/${VERSION}/namespaces/${ns}/${plural}`;
      const informer = this.informer(plural, path, list, trimMeta, (obj, type) =>
        options.onResource(kind, obj, type),
      );
      this.resources.set(kind, informer);
    }
    const labelSelector = `${LABELS.managedBy}=causeway-operator`;
    this.jobs = this.informer(
      "jobs",
      `/apis/batch/v1/namespaces/${ns}/jobs`,
      () => batch.listNamespacedJob({ namespace: ns, labelSelector }),
      trimJob,
      options.onJob,
      labelSelector,
    );
    this.pods = this.informer(
      "pods",
      `/api/v1/namespaces/${ns}/pods`,
      () => core.listNamespacedPod({ namespace: ns, labelSelector }),
      trimPod,
      options.onPod,
      labelSelector,
    );
  }

  resource(kind: JobKind, namespace: string, name: string): CausewayResource | undefined {
    return this.resources.get(kind)?.get(name, namespace) as CausewayResource | undefined;
  }

  job(namespace: string, name: string): V1Job | undefined {
    return this.jobs.get(name, namespace);
  }

  /** The cached pods of a resource's Job (by the labels the Job gives them). */
  podsOf(kind: JobKind, namespace: string, name: string): V1Pod[] {
    return this.pods
      .list(namespace)
      .filter(
        (p) =>
          p.metadata?.labels?.[LABELS.resource] === name &&
          p.metadata?.labels?.[LABELS.kind] === RESOURCES[kind].singular,
      );
  }

  /** Starts every informer; resolves once each has listed. */
  async start(): Promise<void> {
    await Promise.all(this.informers.map((i) => i.start()));
  }

  async stop(): Promise<void> {
    await Promise.all(this.informers.map((i) => i.stop()));
  }

  /** True when every informer has listed once. */
  get synced(): boolean {
    return this.informers.every((i) => i.synced);
  }

  /** How many informers' watches went silent. */
  staleCount(): number {
    return this.informers.filter((i) => i.isStale()).length;
  }

  private informer<T extends KubernetesObject>(
    name: string,
    path: string,
    list: () => Promise<KubernetesListObject<T>>,
    trim: (obj: T) => void,
    onEvent: (obj: T, type: InformerEvent) => void,
    labelSelector?: string,
  ): ResilientInformer<T> {
    const informer = new ResilientInformer<T>({
      name,
      kc: this.o.kc,
      path,
      list,
      labelSelector,
      clock: this.o.clock,
      log: this.o.log,
      relistIntervalMs: this.o.relistIntervalMs,
      staleAfterMs: this.o.staleAfterMs,
      backoffBaseMs: 1000,
      backoffMaxMs: 60_000,
      onEvent: (type, obj) => onEvent(obj, type),
      trim,
      onRestart: (cause) => this.o.metrics.watchRestarts.inc({ resource: name, cause }),
    });
    this.informers.push(informer);
    return informer;
  }
}
