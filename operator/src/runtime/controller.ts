/**
 * Wires the plumbing to the decisions: informers (caches.ts) feed watch events through the
 * predicates (predicates.ts) into the work queue; a worker reads the resource, its Job and its
 * pods from the caches, asks the pure reconcile function what to do, has its actions and its
 * one status write carried out (writes.ts), records Events and metrics, and hands the requeue
 * delay back to the queue. Own writes are told from news by the expectations (expectations.ts).
 *
 * Reading caches is safe (controller-runtime's model): a Job created on a stale cache miss
 * hits 409 on its deterministic name and the pass reads that Job live; a status computed
 * from a stale resource is refused by the write's resourceVersion precondition, and the
 * newer version's watch event brings the key back. Live reads remain only where a cache
 * miss would mean a decision: a Job the status of an unfinished resource says was created
 * but the cache lacks.
 */
import type { KubeConfig, KubernetesObject, V1Job } from "@kubernetes/client-node";
import type { Logger } from "pino";
import type { CausewayResource, JobKind } from "@causeway/contract";
import { inSpan } from "@causeway/contract/telemetry";
import { resourceTraceContext } from "../observability/tracing.ts";
import { decide } from "../reconcile/decide.ts";
import { decideDeleted } from "../reconcile/deleted.ts";
import { childNames } from "../reconcile/job.ts";
import { isTerminal } from "../reconcile/runner-job.ts";
import type { JobRejection, Observed, ReconcileConfig } from "../reconcile/types.ts";
import type { FailureReporter } from "./api-callback.ts";
import { InformerCaches, type ControllerCache } from "./caches.ts";
import type { Clock } from "./clock.ts";
import type { EventRecorder } from "./events.ts";
import { Expectations } from "./expectations.ts";
import type { InformerEvent } from "./informer.ts";
import type { KubeGateway } from "./kube.ts";
import type { OperatorMetrics } from "./metrics.ts";
import { ownerOf, WatchPredicates, type OwnedSource } from "./predicates.ts";
import { WorkQueue, type HandlerResult } from "./queue.ts";
import { Tombstones } from "./tombstones.ts";
import { PassWrites } from "./writes.ts";

export type { ControllerCache } from "./caches.ts";

/**
 * Rounds of one pass: a create that finds its Job already there, or that the apiserver refused
 * for good, observes once more.
 */
const MAX_ROUNDS = 2;

/** How many deleted resources' uids are remembered as decided about. */
const DELETED_MEMORY = 1000;

/** What a round hands the next one of the same pass. */
interface RoundInput {
  /** Read the Job live (a create met 409). */
  live: boolean;
  /** The apiserver refused this pass's Job create for good. */
  jobRejected?: JobRejection;
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
   * How long a Job or pod event waits for the rest of its burst (a runner's life is several
   * updates of each, and one pass after them decides the same); resource events run at once.
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
  private readonly o: ControllerOptions;
  private readonly informers: InformerCaches;
  private readonly cache: ControllerCache;
  /** Own status writes (by queue key) and Job creates (by namespace/name) whose events are due. */
  private readonly statusWrites = new Expectations();
  private readonly jobCreates = new Expectations();
  private readonly predicates: WatchPredicates;
  private readonly writes: PassWrites;
  /** Deleted Jobs' last states, which a pass reads as `Observed.deletedJob`. */
  private readonly tombstones: Tombstones;
  /** `Decision.jobMissingSince` of the last pass, by queue key, handed to the next pass. */
  private readonly missingSince = new Map<string, Date>();
  /**
   * The last state of deleted resources (their delete events), by queue key, until the pass the
   * event queued has decided about it (decideDeleted); the pass takes it out, so it acts once.
   */
  private readonly deleted = new Map<string, CausewayResource>();
  /**
   * Uids of deleted resources already decided about (the last DELETED_MEMORY), so a second
   * delete event for one resource (a watch restart's replay) does not report it again.
   */
  private readonly deletedDone = new Set<string>();

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
    this.informers = new InformerCaches({
      ...options,
      onResource: (kind, obj, type) => this.onResourceEvent(kind, obj, type),
      onJob: (job, type) => {
        if (type === "delete") this.rememberDeleted(job);
        this.enqueueOwner("job", job, type);
      },
      onPod: (pod, type) => this.enqueueOwner("pod", pod, type),
    });
    this.cache = options.cache ?? this.informers;
    const { statusWrites, jobCreates, cache } = this;
    this.predicates = new WatchPredicates({ statusWrites, jobCreates, resource: cache.resource.bind(cache) });
    this.writes = new PassWrites({
      ...options,
      statusWrites,
      jobCreates,
      requeue: (source, key) =>
        source === "job" ? this.queue.addAfter(key, options.coalesceMs ?? 0) : this.queue.add(key),
    });
  }

  /** The account a queue key's resource belongs to (its own key when the cache has no resource). */
  private accountOf(key: string): string {
    const { kind, namespace, name } = parseKey(key);
    return this.cache.resource(kind, namespace, name)?.spec.account_id ?? key;
  }

  /** A Job's delete event carries its final state, which a pass may still need (tombstones.ts). */
  private rememberDeleted(job: V1Job): void {
    this.tombstones.remember(job);
  }

  /** A resource event: queued at once unless it is the echo of an own status write. */
  private onResourceEvent(kind: JobKind, obj: KubernetesObject, type: InformerEvent): void {
    const { namespace, name } = obj.metadata ?? {};
    if (!namespace || !name) return;
    const key = queueKey(kind, namespace, name);
    if (type === "delete") this.deleted.set(key, obj as CausewayResource);
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
    await this.informers.start();
    this.o.log.info({ namespace: this.o.namespace }, "controller started");
  }

  async stop(): Promise<void> {
    await this.informers.stop();
    await this.queue.shutdown();
  }

  /** True when every informer has listed once. */
  get synced(): boolean {
    return this.informers.synced;
  }

  /** How many informers' watches went silent. */
  staleInformers(): number {
    return this.informers.staleCount();
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
    const effects = this.o.metrics.reconcileEffects;
    // A deleted resource (also one already recreated under its name): tell the API if its job
    // was still running.
    const last = this.deleted.get(key);
    if (last && last.metadata.uid !== cached?.metadata.uid) {
      this.deleted.delete(key);
      await this.actOnDeleted(kind, key, last);
    }
    // Missing means done: the garbage collector removes the Job and Secret with it.
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
        let input: RoundInput = { live: false };
        for (let round = 1; ; round++) {
          const result = await this.decideAndAct(kind, key, resource, input);
          if (!("reobserve" in result)) return result;
          // The Job appeared, then vanished again, between two reads: let the queue back off.
          if (round >= MAX_ROUNDS) throw new Error(`the Job of ${key} keeps changing while it is created`);
          input = result.reobserve;
        }
      },
      resourceTraceContext(resource),
    );
  }

  /**
   * The last state of a deleted resource: its decision (a failure report when its job had not
   * finished) is carried out once; the resource is gone, so there is no status and no Event.
   */
  private async actOnDeleted(kind: JobKind, key: string, last: CausewayResource): Promise<void> {
    const { namespace, name, uid } = last.metadata;
    if (uid) {
      if (this.deletedDone.has(uid)) return;
      this.deletedDone.add(uid);
      // A Set iterates in insertion order: the first uid is the oldest.
      if (this.deletedDone.size > DELETED_MEMORY) {
        const oldest = this.deletedDone.values().next().value;
        if (oldest !== undefined) this.deletedDone.delete(oldest);
      }
    }
    const log = this.o.log.child({ kind, namespace, name, uid });
    const decision = decideDeleted(last);
    if (decision.actions.length > 0)
      log.info(
        { phase: last.status?.phase ?? null },
        "resource deleted before its job finished; telling the API",
      );
    for (const action of decision.actions) await this.writes.apply(kind, key, last, action, log);
  }

  /**
   * What a pass sees: the Job (cached; live after a create met 409, or when the status of an
   * unfinished resource names a Job the cache lacks), the remembered end of a deleted one, the pods, the time, and a
   * rejection of this pass's own Job create.
   */
  private async observe(
    kind: JobKind,
    key: string,
    resource: CausewayResource,
    { live, jobRejected }: RoundInput,
  ): Promise<Observed> {
    const namespace = resource.metadata.namespace ?? "";
    const name = resource.metadata.name ?? "";
    const jobName = childNames(kind, name).job;
    const cachedJob = live ? undefined : this.cache.job(namespace, jobName);
    // A finished resource's Job is read live no more: mostly its TTL has deleted it, and cleanup
    // only stops one that still runs, whose watch events run a pass of their own (the
    // resource-TTL requeues would otherwise cost a GET each).
    const readLive = live || (!!resource.status?.jobName && !isTerminal(resource.status.phase));
    const job =
      cachedJob !== undefined
        ? structuredClone(cachedJob)
        : readLive
          ? await this.o.gateway.getJob(namespace, jobName)
          : null;
    return {
      resource,
      job,
      deletedJob: this.tombstones.get(namespace, jobName),
      jobMissingSince: this.missingSince.get(key) ?? null,
      pods: this.informers.podsOf(kind, namespace, name),
      now: new Date(this.o.clock.now()),
      jobRejected: jobRejected ?? null,
    };
  }

  /** One round: observe, decide, carry out the actions, write status once, record Events. */
  private async decideAndAct(
    kind: JobKind,
    key: string,
    resource: CausewayResource,
    input: RoundInput,
  ): Promise<HandlerResult | { reobserve: RoundInput }> {
    const observed = await this.observe(kind, key, resource, input);
    const decision = decide(kind, observed, this.o.config);
    if (decision.jobMissingSince) this.missingSince.set(key, decision.jobMissingSince);
    else this.missingSince.delete(key);
    const { namespace, name, generation } = resource.metadata;
    const log = this.o.log.child({ kind, namespace, name, generation });
    const { actions, requeueAfterMs } = decision;
    const job = observed.job?.metadata?.name ?? null;
    log.debug({ actions: actions.map((a) => a.type), requeueAfterMs, job }, "reconciled");
    for (const action of decision.actions) {
      const done = await this.writes.apply(kind, key, resource, action, log);
      // A create that met its Job already there: whose Job it is, a live read decides.
      if (done === "reobserve") return { reobserve: { live: true } };
      // A create refused for good: reconcile decides what that means (the resource fails).
      if (typeof done === "object") return { reobserve: { live: false, jobRejected: done.rejected } };
    }
    const effect = decision.actions.length > 0 ? "acted" : decision.status ? "status" : "none";
    this.o.metrics.reconcileEffects.inc({ kind, effect });
    // A conflict means the cache was behind: the newer version's watch event brings the key back.
    if (
      decision.status &&
      (await this.writes.writeStatus(key, resource, decision.status, log)) === "conflict"
    )
      return {};
    if (decision.finished) this.o.metrics.jobsFinished.inc({ kind, ...decision.finished });
    for (const ev of decision.events) await this.o.recorder.record(resource, ev);
    return { requeueAfterMs: decision.requeueAfterMs };
  }
}
