/**
 * Watch predicates (controller-runtime's): which watch events can change a decision and so run
 * a pass. Each answer is the `outcome` label of causeway_reconcile_triggers_total, so the metric
 * says why an event ran no pass. The rules, in the order they are asked (README invariant 3):
 *
 * - an event that arrives while an own write is on its way is held for that write's answer, and
 *   the echo of an own write (status update, Job create) tells the pass that made it nothing new
 *   (expectations.ts), unless work was deferred to it;
 * - a Job or pod update that leaves what the decisions read unchanged, and a pod nothing has
 *   happened to yet, change nothing (decision-view.ts);
 * - while the cached resource is a copy an own status write superseded, a Job or pod event waits
 *   for that write's event instead of running a pass that would only meet a conflict;
 * - for a terminal resource only a Job that still runs matters (cleanup stops it; it reads
 *   nothing else).
 */
import type { KubernetesObject, V1Job, V1Pod } from "@kubernetes/client-node";
import { LABELS, RESOURCES, type CausewayResource, type JobKind } from "@causeway/contract";
import { isJobFinished } from "../reconcile/job.ts";
import { isTerminal } from "../reconcile/runner-job.ts";
import { isFreshPod, jobView, podView } from "./decision-view.ts";
import type { DeferredWork, Expectations } from "./expectations.ts";
import type { InformerEvent } from "./informer.ts";

/** Which informer an owned object's event came from. */
export type OwnedSource = "job" | "pod";
/** What became of a resource event. */
export type ResourceOutcome = "held" | "own_write" | "queued";
/** What became of a Job or pod event. */
export type OwnedOutcome = "held" | "unchanged" | "own_job" | "deferred" | "terminal" | "queued";

/** A resource as the queue names it. */
export interface ResourceRef {
  kind: JobKind;
  namespace: string;
  name: string;
}

/** What the predicates read: the own-write stores and the cached resource. */
export interface PredicateOptions {
  /** Own status writes, by queue key. */
  statusWrites: Expectations;
  /** Own Job creates, by namespace/name. */
  jobCreates: Expectations;
  resource(kind: JobKind, namespace: string, name: string): CausewayResource | undefined;
}

const KIND_OF_SINGULAR = new Map<string, JobKind>(
  (Object.keys(RESOURCES) as JobKind[]).map((k) => [RESOURCES[k].singular, k]),
);

/** The resource a Job or pod belongs to, from the labels the operator's Jobs carry; undefined for others. */
export function ownerOf(obj: KubernetesObject): ResourceRef | undefined {
  const labels = obj.metadata?.labels ?? {};
  const kind = KIND_OF_SINGULAR.get(labels[LABELS.kind] ?? "");
  const namespace = obj.metadata?.namespace;
  const name = labels[LABELS.resource];
  return kind && namespace && name ? { kind, namespace, name } : undefined;
}

/** For a terminal resource an event still matters only when it shows a Job that runs on. */
export function mattersWhenTerminal(
  source: OwnedSource,
  obj: KubernetesObject,
  type: InformerEvent,
): boolean {
  const job = obj as V1Job;
  return source === "job" && type !== "delete" && !job.metadata?.deletionTimestamp && !isJobFinished(job);
}

/** Whether the echo of an own status write runs a pass: only for the work deferred to it. */
export function echoRunsPass(deferred: DeferredWork | undefined, resource: CausewayResource): boolean {
  if (deferred === undefined) return false;
  return deferred === "always" || !isTerminal(resource.status?.phase);
}

export class WatchPredicates {
  private readonly o: PredicateOptions;
  /** The decision view last seen of each cached Job and pod, by source/namespace/name. */
  private readonly views = new Map<string, string>();

  constructor(options: PredicateOptions) {
    this.o = options;
  }

  /** A resource event for queue key `key`: resource events run at once unless they are an own echo. */
  resourceEvent(key: string, obj: CausewayResource, type: InformerEvent): ResourceOutcome {
    const version = obj.metadata?.resourceVersion;
    if (type === "update" && version !== undefined && this.o.statusWrites.hold(key, version)) return "held";
    const seen = this.o.statusWrites.observe(key, type === "update" ? version : undefined);
    return seen.own && !echoRunsPass(seen.deferred, obj) ? "own_write" : "queued";
  }

  /** An event of a Job or pod of `owner` (queue key `key`). */
  ownedEvent(
    source: OwnedSource,
    owner: ResourceRef,
    key: string,
    obj: KubernetesObject,
    type: InformerEvent,
  ): OwnedOutcome {
    if (!this.viewChanged(source, obj, type)) return "unchanged";
    if (source === "job") {
      const jobKey = `${obj.metadata?.namespace}/${obj.metadata?.name}`;
      const version = obj.metadata?.resourceVersion;
      if (type === "add" && version !== undefined && this.o.jobCreates.hold(jobKey, version)) return "held";
      if (this.o.jobCreates.observe(jobKey, type === "add" ? version : undefined).own) return "own_job";
    }
    const matters = mattersWhenTerminal(source, obj, type);
    const cached = this.o.resource(owner.kind, owner.namespace, owner.name);
    if (this.o.statusWrites.isSuperseded(key, cached?.metadata.resourceVersion)) {
      this.o.statusWrites.defer(key, matters ? "always" : "unlessTerminal");
      return "deferred";
    }
    if (cached && isTerminal(cached.status?.phase) && !matters) return "terminal";
    return "queued";
  }

  /** How many Jobs and pods have a remembered view (it follows the caches). */
  get size(): number {
    return this.views.size;
  }

  /** Records the object's decision view; false when the event cannot change a decision. */
  private viewChanged(source: OwnedSource, obj: KubernetesObject, type: InformerEvent): boolean {
    const viewKey = `${source}/${obj.metadata?.namespace}/${obj.metadata?.name}`;
    if (type === "delete") {
      this.views.delete(viewKey);
      return true;
    }
    const view = source === "job" ? jobView(obj as V1Job) : podView(obj as V1Pod);
    const unchanged = type === "update" && this.views.get(viewKey) === view;
    this.views.set(viewKey, view);
    return !unchanged && !(source === "pod" && type === "add" && isFreshPod(obj as V1Pod));
  }
}
