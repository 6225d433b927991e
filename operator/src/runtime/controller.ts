/**
 * Wires the plumbing to the decisions: informers feed keys into the work queue; a worker
 * reads the resource, its Job and its pods from the informers' caches, asks the pure
 * reconcile function what to do, carries out its actions, writes status once (only when it
 * changed), records Events and metrics, and hands the requeue delay back to the queue.
 *
 * Reading caches is safe (controller-runtime's model): a Job created on a stale cache miss
 * hits 409 on its deterministic name and the pass reads that Job live; a status computed
 * from a stale resource is refused by the write's resourceVersion precondition, and the
 * newer version's watch event brings the key back. Live reads remain only where a cache
 * miss would mean a decision: a Job the status says was created but the cache lacks.
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
import type { JobKind } from "@causeway/contract";
import {
  GROUP,
  LABELS,
  RESOURCES,
  VERSION,
  type CausalAnalysisResource,
  type CausewayResource,
  type PredictionResource,
} from "@causeway/contract";
import { reconcileCausalAnalysis } from "../reconcile/causal-analysis.ts";
import { childNames, jobOwnerReference } from "../reconcile/job.ts";
import { reconcilePrediction } from "../reconcile/prediction.ts";
import type { Action, Decision, Observed, ReconcileConfig } from "../reconcile/types.ts";
import type { Clock } from "./clock.ts";
import type { EventRecorder } from "./events.ts";
import { trimJob, trimMeta, trimPod } from "./cache-trim.ts";
import { ResilientInformer, type InformerEvent } from "./informer.ts";
import type { KubeGateway } from "./kube.ts";
import type { FailureReporter } from "./api-callback.ts";
import type { OperatorMetrics } from "./metrics.ts";
import { WorkQueue, type HandlerResult } from "./queue.ts";
import { Expectations } from "./expectations.ts";
import { Tombstones } from "./tombstones.ts";
import { ownerOf, WatchPredicates, type OwnedSource } from "./predicates.ts";
import { inSpan, traceContextOf } from "@causeway/contract/telemetry";
import { resourceTraceContext, withTraceEnv } from "../observability/tracing.ts";

const KINDS: JobKind[] = ["prediction", "causal_analysis"];
/** Rounds of one pass: a create that finds its Job already there observes once more. */
const MAX_ROUNDS = 2;

/** What a pass reads from the informers' caches (tests pass their own). */
export interface ControllerCache {
  resource(kind: JobKind, namespace: string, name: string): CausewayResource | undefined;
  job(namespace: string, name: string): V1Job | undefined;
}

/** Everything the controller is wired from (main.ts builds it; tests pass fakes). */
export interface ControllerOptions {
  kc: KubeConfig;
  namespace: string;
  gateway: KubeGateway;
  config: ReconcileConfig;
  clock: Clock;
  log: Logger;
  metrics: OperatorMetrics;
  recorder: EventRecorder;
  concurrency: number;
  relistIntervalMs: number;
  staleAfterMs: number;
  /** Tells the API about operator-detected failures; runs in the background, never blocks a pass. */
  reportFailure?: FailureReporter;
  /** Defaults to the controller's own informers. */
  cache?: ControllerCache;
  /**
   * How long a Job or pod event waits for more of its kind before its pass runs: a runner's
   * life is a burst of pod and Job updates, and one pass after the burst decides the same as
   * one per update. Resource events run at once (creating the Job is never delayed).
   */
  coalesceMs?: number;
  /** The queue's fairness group of a key (default: the resource's account). */
  groupOf?: (key: string) => string;
}

/** `kind/namespace/name`. */
export const queueKey = (kind: JobKind, namespace: string, name: string): string =>
  `${kind}/${namespace}/${name}`;

function parseKey(key: string): { kind: JobKind; namespace: string; name: string } {
  const [kind, namespace, name] = key.split("/") as [JobKind, string, string];
  return { kind, namespace, name };
}

/** The reconcile loop of one operator replica (the leader). */
export class Controller {
  readonly queue: WorkQueue;
  readonly informers: ResilientInformer<KubernetesObject>[] = [];
  private readonly o: ControllerOptions;
  private readonly pods: ResilientInformer<V1Pod>;
  private readonly jobs: ResilientInformer<V1Job>;
  private readonly resources = new Map<JobKind, ResilientInformer<KubernetesObject>>();
  private readonly cache: ControllerCache;
  /** Own status writes (by queue key) and Job creates (by namespace/name) whose events are due. */
  private readonly statusWrites = new Expectations();
  private readonly jobCreates = new Expectations();
  private readonly predicates: WatchPredicates;
  /** Deleted Jobs' last states, which a pass reads as `Observed.deletedJob`. */
  private readonly tombstones: Tombstones;
  /** `Decision.jobMissingSince` of the last pass, by queue key, handed to the next pass. */
  private readonly missingSince = new Map<string, Date>();

  constructor(options: ControllerOptions) {
    this.o = options;
    this.tombstones = new Tombstones(options.clock);
    this.queue = new WorkQueue({
      concurrency: options.concurrency,
      baseDelayMs: 500,
      maxDelayMs: 5 * 60_000,
      clock: options.clock,
      handler: (key) => this.reconcile(key),
      // Fair across accounts: one account's thousand resources do not delay another's first.
      groupOf: options.groupOf ?? ((key) => this.accountOf(key)),
      onError: (key, err, attempt) =>
        options.log.warn({ key, err, attempt }, "reconcile failed; retrying with backoff"),
      metrics: options.metrics.queue("causeway"),
    });
    const custom = options.kc.makeApiClient(CustomObjectsApi);
    const batch = options.kc.makeApiClient(BatchV1Api);
    const core = options.kc.makeApiClient(CoreV1Api);
    const ns = options.namespace;
    for (const kind of KINDS) {
      const plural = RESOURCES[kind].plural;
      const informer = this.informer<KubernetesObject>(
        trimMeta,
        plural,
        `/apis/${GROUP}/${VERSION}/namespaces/${ns}/${plural}`,
        async () => {
          const list: unknown = await custom.listNamespacedCustomObject({
            group: GROUP,
            version: VERSION,
            namespace: ns,
            plural,
          });
          return list as KubernetesListObject<KubernetesObject>;
        },
        (obj, type) => this.onResourceEvent(kind, obj, type),
      );
      this.resources.set(kind, informer);
      this.informers.push(informer);
    }
    const selector = `${LABELS.managedBy}=causeway-operator`;
    this.jobs = this.informer<V1Job>(
      trimJob,
      "jobs",
      `/apis/batch/v1/namespaces/${ns}/jobs`,
      () => batch.listNamespacedJob({ namespace: ns, labelSelector: selector }),
      (o, type) => {
        if (type === "delete") this.rememberDeleted(o);
        this.enqueueOwner("job", o, type);
      },
      selector,
    );
    this.informers.push(this.jobs as ResilientInformer<KubernetesObject>);
    this.pods = this.informer<V1Pod>(
      trimPod,
      "pods",
      `/api/v1/namespaces/${ns}/pods`,
      () => core.listNamespacedPod({ namespace: ns, labelSelector: selector }),
      (o, type) => this.enqueueOwner("pod", o, type),
      selector,
    );
    this.informers.push(this.pods as ResilientInformer<KubernetesObject>);
    this.cache = options.cache ?? {
      resource: (kind, namespace, name) =>
        this.resources.get(kind)?.get(name, namespace) as CausewayResource | undefined,
      job: (namespace, name) => this.jobs.get(name, namespace),
    };
    this.predicates = new WatchPredicates({
      statusWrites: this.statusWrites,
      jobCreates: this.jobCreates,
      resource: (kind, namespace, name) => this.cache.resource(kind, namespace, name),
    });
  }

  /** The account a queue key's resource belongs to (its own key when the cache has no resource). */
  private accountOf(key: string): string {
    const { kind, namespace, name } = parseKey(key);
    return this.cache.resource(kind, namespace, name)?.spec.account_id ?? key;
  }

  private informer<T extends KubernetesObject>(
    trim: (obj: T) => void,
    name: string,
    path: string,
    list: () => Promise<KubernetesListObject<T>>,
    onEvent: (obj: T, type: InformerEvent) => void,
    labelSelector?: string,
  ): ResilientInformer<T> {
    return new ResilientInformer<T>({
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
  }

  private rememberDeleted(job: V1Job): void {
    this.tombstones.remember(job);
  }

  /** A resource event: queued at once unless it is the echo of an own status write. */
  private onResourceEvent(kind: JobKind, obj: KubernetesObject, type: InformerEvent): void {
    const { namespace, name } = obj.metadata ?? {};
    if (!namespace || !name) return;
    const key = queueKey(kind, namespace, name);
    const outcome = this.predicates.resourceEvent(key, obj as CausewayResource, type);
    if (outcome === "held") return;
    this.o.metrics.reconcileTriggers.inc({ source: "resource", outcome });
    if (outcome === "queued") this.queue.add(key);
  }

  /**
   * A Job or pod event, for the resource its labels name, when it can change a decision
   * (predicates.ts); queued after `coalesceMs`, so a runner's burst of updates runs one pass.
   */
  private enqueueOwner(source: OwnedSource, obj: KubernetesObject, type: InformerEvent): void {
    const owner = ownerOf(obj);
    if (!owner) return;
    const key = queueKey(owner.kind, owner.namespace, owner.name);
    const outcome = this.predicates.ownedEvent(source, owner, key, obj, type);
    if (outcome === "held") return;
    this.o.metrics.reconcileTriggers.inc({ source, outcome });
    if (outcome === "queued") this.queue.addAfter(key, this.o.coalesceMs ?? 0);
  }

  /** Starts the informers (each resolves after its first list) and thereby the queue. */
  async start(): Promise<void> {
    await Promise.all(this.informers.map((i) => i.start()));
    this.o.log.info({ namespace: this.o.namespace }, "controller started");
  }

  async stop(): Promise<void> {
    await Promise.all(this.informers.map((i) => i.stop()));
    await this.queue.shutdown();
  }

  /** True when every informer has listed once. */
  get synced(): boolean {
    return this.informers.every((i) => i.synced);
  }

  /** How many informers' watches went silent. */
  staleInformers(): number {
    return this.informers.filter((i) => i.isStale()).length;
  }

  /** One reconcile pass for a queue key. */
  async reconcile(key: string): Promise<HandlerResult> {
    const { kind, namespace, name } = parseKey(key);
    const stopTimer = this.o.metrics.reconcileDuration.startTimer({ kind });
    try {
      const result = await this.pass(kind, namespace, name);
      this.o.metrics.reconciles.inc({ kind, result: result.requeueAfterMs ? "requeue" : "success" });
      return result;
    } catch (err) {
      this.o.metrics.reconciles.inc({ kind, result: "error" });
      this.o.metrics.reconcileErrors.inc({ kind });
      throw err;
    } finally {
      stopTimer();
    }
  }

  private async pass(kind: JobKind, namespace: string, name: string): Promise<HandlerResult> {
    const key = queueKey(kind, namespace, name);
    const cached = this.cache.resource(kind, namespace, name);
    // Missing means done: the garbage collector removes the Job and Secret with it.
    const effects = this.o.metrics.reconcileEffects;
    if (!cached) {
      this.missingSince.delete(key);
      this.statusWrites.forget(key);
      effects.inc({ kind, effect: "gone" });
      return {};
    }
    if (this.statusWrites.isSuperseded(key, cached.metadata.resourceVersion)) {
      this.statusWrites.defer(key, "always");
      effects.inc({ kind, effect: "skipped" });
      return {};
    }
    // This pass sees the caches after any deferred event: it does that event's work.
    this.statusWrites.current(key);
    // Never mutate cached objects.
    const resource = structuredClone(cached);
    // The pass continues the trace the API started (the resource's traceparent annotation).
    return inSpan(
      "operator.reconcile",
      async () => {
        for (let round = 1; ; round++) {
          const result = await this.decideAndAct(kind, key, resource, round > 1);
          if (result !== "reobserve") return result;
          // The Job appeared, then vanished again, between two reads: let the queue back off.
          if (round >= MAX_ROUNDS) throw new Error(`the Job of ${key} keeps changing while it is created`);
        }
      },
      resourceTraceContext(resource),
    );
  }

  /**
   * What a pass sees: the Job (cached; live after a create met 409, or when the status names a
   * Job the cache lacks), the remembered end of a deleted one, the pods, the time.
   */
  private async observe(
    kind: JobKind,
    key: string,
    resource: CausewayResource,
    live: boolean,
  ): Promise<Observed> {
    const namespace = resource.metadata.namespace ?? "";
    const name = resource.metadata.name ?? "";
    const jobName = childNames(kind, name).job;
    const cachedJob = live ? undefined : this.cache.job(namespace, jobName);
    const job =
      cachedJob !== undefined
        ? structuredClone(cachedJob)
        : live || resource.status?.jobName
          ? await this.o.gateway.getJob(namespace, jobName)
          : null;
    const pods = this.pods
      .list(namespace)
      .filter(
        (p) =>
          p.metadata?.labels?.[LABELS.resource] === name &&
          p.metadata?.labels?.[LABELS.kind] === RESOURCES[kind].singular,
      );
    return {
      resource,
      job,
      deletedJob: this.tombstones.get(namespace, jobName),
      jobMissingSince: this.missingSince.get(key) ?? null,
      pods,
      now: new Date(this.o.clock.now()),
    };
  }

  /** One round: observe, decide, carry out the actions, write status once, record Events. */
  private async decideAndAct(
    kind: JobKind,
    key: string,
    resource: CausewayResource,
    live: boolean,
  ): Promise<HandlerResult | "reobserve"> {
    const observed = await this.observe(kind, key, resource, live);
    const decision = decide(kind, observed, this.o.config);
    if (decision.jobMissingSince) this.missingSince.set(key, decision.jobMissingSince);
    else this.missingSince.delete(key);
    const { namespace, name, generation } = resource.metadata;
    const log = this.o.log.child({ kind, namespace, name, generation });
    log.debug(
      {
        actions: decision.actions.map((a) => a.type),
        requeueAfterMs: decision.requeueAfterMs,
        job: observed.job?.metadata?.name ?? null,
      },
      "reconciled",
    );
    for (const action of decision.actions) {
      if ((await this.apply(kind, resource, action, log)) === "reobserve") return "reobserve";
    }
    const effect = decision.actions.length > 0 ? "acted" : decision.status ? "status" : "none";
    this.o.metrics.reconcileEffects.inc({ kind, effect });
    if (decision.status) {
      this.statusWrites.begin(key);
      let written: Awaited<ReturnType<KubeGateway["applyStatus"]>> | undefined;
      try {
        written = await this.o.gateway.applyStatus(resource, decision.status);
      } finally {
        const after = written !== undefined && written !== "conflict" ? written.resourceVersion : undefined;
        const { own, news } = this.statusWrites.settleUpdate(key, after, resource.metadata.resourceVersion);
        this.released("resource", key, own, news);
      }
      if (written === "conflict") {
        // The cache was behind: the newer version's watch event brings this key back.
        log.debug("status write met a newer resource version");
        return {};
      }
      const failed = decision.status.conditions?.find((c) => c.type === "Failed" && c.status === "True");
      log.info(
        { phase: decision.status.phase, reason: failed?.reason, message: failed?.message },
        "status written",
      );
    }
    if (decision.finished) this.o.metrics.jobsFinished.inc({ kind, ...decision.finished });
    for (const ev of decision.events) await this.o.recorder.record(resource, ev);
    return { requeueAfterMs: decision.requeueAfterMs };
  }

  /** Counts the watch events held during an own write and enqueues those that were news. */
  private released(source: "resource" | OwnedSource, key: string, own: number, news: string[]): void {
    const triggers = this.o.metrics.reconcileTriggers;
    if (own > 0) triggers.inc({ source, outcome: source === "job" ? "own_job" : "own_write" }, own);
    for (let i = 0; i < news.length; i++) {
      triggers.inc({ source, outcome: "queued" });
      if (source === "job") this.queue.addAfter(key, this.o.coalesceMs ?? 0);
      else this.queue.add(key);
    }
  }

  /** Carries out one action; "reobserve" when a create found its Job already there. */
  private async apply(
    kind: JobKind,
    resource: CausewayResource,
    action: Action,
    log: Logger,
  ): Promise<"done" | "reobserve"> {
    const gw = this.o.gateway;
    const namespace = resource.metadata.namespace ?? "";
    switch (action.type) {
      case "createSecret":
        await gw.createSecret(action.secret);
        return "done";
      case "deleteJob":
        await gw.deleteJob(namespace, action.name);
        return "done";
      case "reportFailure": {
        const { errorCode, message } = action;
        void this.o.reportFailure?.({ kind, jobId: resource.spec.job_id, errorCode, message });
        return "done";
      }
      case "createJob": {
        const jobKey = `${namespace}/${action.job.metadata?.name ?? ""}`;
        this.jobCreates.begin(jobKey);
        let created: V1Job | "exists" | undefined;
        try {
          // The runner's TRACEPARENT points at the span that created its Job.
          created = await inSpan("operator.create_job", (span) =>
            gw.createJob(withTraceEnv(action.job, traceContextOf(span))),
          );
        } finally {
          const version = created === "exists" ? undefined : created?.metadata?.resourceVersion;
          const { own, news } = this.jobCreates.settle(jobKey, version);
          this.released("job", queueKey(kind, namespace, resource.metadata.name ?? ""), own, news);
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
}

/** The pure decision for a resource of either kind. */
function decide(kind: JobKind, observed: Observed, config: ReconcileConfig): Decision {
  return kind === "prediction"
    ? reconcilePrediction(observed as Observed<PredictionResource>, config)
    : reconcileCausalAnalysis(observed as Observed<CausalAnalysisResource>, config);
}

/** Makes a new Action type a compile error here until the runtime carries it out. */
function unreachable(action: never): never {
  throw new Error(`unknown action ${JSON.stringify(action)}`);
}
