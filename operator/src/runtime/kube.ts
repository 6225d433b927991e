/**
 * The operator's only door to the apiserver: a small gateway over @kubernetes/client-node,
 * so the controller can run against a fake in tests. Create treats 409 as "exists" and
 * delete treats 404 as done; status is written with server-side apply under the
 * operator's own field manager. `rejection` tells a permanent refusal (400, 403, 422) from
 * the errors worth retrying; what a refusal means is reconcile's to decide.
 */
import {
  BatchV1Api,
  CoordinationV1Api,
  CoreV1Api,
  CustomObjectsApi,
  EventsV1Api,
  PatchStrategy,
  setHeaderOptions,
  type EventsV1Event,
  type KubeConfig,
  type V1Job,
  type V1Lease,
  type V1Secret,
} from "@kubernetes/client-node";
import {
  API_VERSION,
  GROUP,
  statusApply,
  RESOURCES,
  VERSION,
  type CausewayResource,
} from "@causeway/contract";
import type { OperatorStatus } from "../reconcile/runner-job.ts";
import type { JobRejection } from "../reconcile/types.ts";
import { LeaseConflict, type LeaseRecord, type LeaseStore } from "./lease.ts";

/** The HTTP status of a client-node error, if it has one. */
export function httpStatus(err: unknown): number | undefined {
  if (typeof err !== "object" || err === null) return undefined;
  const e = err as { code?: unknown; statusCode?: unknown };
  if (typeof e.code === "number") return e.code;
  if (typeof e.statusCode === "number") return e.statusCode;
  return undefined;
}

/**
 * Answers that no retry can change: 400 Bad Request, 403 Forbidden (an admission webhook, a
 * ValidatingAdmissionPolicy, a terminating namespace, missing RBAC) and 422 Invalid. Everything
 * else (429, 5xx, timeouts, network errors) is transient and goes to the queue's backoff.
 */
const PERMANENT = new Set([400, 403, 422]);

/** The apiserver's message of a client-node error: its Status body's `message`, else the error's. */
export function apiMessage(err: unknown): string {
  const body = (err as { body?: unknown } | null)?.body;
  let status: unknown = body;
  if (typeof body === "string") {
    try {
      status = JSON.parse(body) as unknown;
    } catch {
      if (body.trim() !== "") return body.trim();
    }
  }
  const message = (status as { message?: unknown } | null | undefined)?.message;
  if (typeof message === "string" && message !== "") return message;
  return err instanceof Error ? err.message : String(err);
}

/** A permanent refusal of a write (see PERMANENT), or null when the error is worth retrying. */
export function rejection(err: unknown): JobRejection | null {
  const status = httpStatus(err);
  return status !== undefined && PERMANENT.has(status) ? { status, message: apiMessage(err) } : null;
}

async function orNull<T>(p: Promise<T>): Promise<T | null> {
  try {
    return await p;
  } catch (err) {
    if (httpStatus(err) === 404) return null;
    throw err;
  }
}

async function ignore(p: Promise<unknown>, status: number): Promise<boolean> {
  try {
    await p;
    return true;
  } catch (err) {
    if (httpStatus(err) === status) return false;
    throw err;
  }
}

/** What the controller needs from the apiserver. */
export interface KubeGateway {
  getJob(namespace: string, name: string): Promise<V1Job | null>;
  /** The created Job (its uid owns the callback Secret); "exists" on 409. */
  createJob(job: V1Job): Promise<V1Job | "exists">;
  deleteJob(namespace: string, name: string): Promise<void>;
  /**
   * Deletes a resource only if it still has this uid and resourceVersion: "conflict" (409) when
   * it changed or was recreated since it was read, "gone" (404) when it is already deleted.
   */
  deleteResource(
    resource: CausewayResource,
    preconditions: { uid: string; resourceVersion: string },
  ): Promise<"deleted" | "gone" | "conflict">;
  createSecret(secret: V1Secret): Promise<"created" | "exists">;
  /**
   * Applies the operator's status fields, conditional on the resource's resourceVersion: a pass
   * that read a stale copy from the cache gets "conflict" instead of overwriting newer state.
   */
  applyStatus(resource: CausewayResource, status: OperatorStatus): Promise<StatusWrite>;
  createEvent(namespace: string, event: EventsV1Event): Promise<void>;
  patchEvent(namespace: string, name: string, patch: object): Promise<void>;
}

/** The outcome of a status write: the new resourceVersion, or a conflict with a newer version. */
export type StatusWrite = { resourceVersion: string | undefined } | "conflict";

const mergePatch = setHeaderOptions("Content-Type", PatchStrategy.MergePatch);
const applyPatch = setHeaderOptions("Content-Type", PatchStrategy.ServerSideApply);

/** The real gateway. */
export class ClientNodeGateway implements KubeGateway {
  private readonly custom: CustomObjectsApi;
  private readonly batch: BatchV1Api;
  private readonly core: CoreV1Api;
  private readonly events: EventsV1Api;

  constructor(kc: KubeConfig) {
    this.custom = kc.makeApiClient(CustomObjectsApi);
    this.batch = kc.makeApiClient(BatchV1Api);
    this.core = kc.makeApiClient(CoreV1Api);
    this.events = kc.makeApiClient(EventsV1Api);
  }

  getJob(namespace: string, name: string): Promise<V1Job | null> {
    return orNull(this.batch.readNamespacedJob({ namespace, name }));
  }

  async createJob(job: V1Job): Promise<V1Job | "exists"> {
    const namespace = job.metadata?.namespace ?? "";
    try {
      return await this.batch.createNamespacedJob({ namespace, body: job });
    } catch (err) {
      if (httpStatus(err) === 409) return "exists";
      throw err;
    }
  }

  async deleteJob(namespace: string, name: string): Promise<void> {
    // Background: the Job goes now, its pods follow through the garbage collector.
    await ignore(this.batch.deleteNamespacedJob({ namespace, name, propagationPolicy: "Background" }), 404);
  }

  async deleteResource(
    resource: CausewayResource,
    preconditions: { uid: string; resourceVersion: string },
  ): Promise<"deleted" | "gone" | "conflict"> {
    const { name = "", namespace = "" } = resource.metadata;
    try {
      // Background: the resource goes now, its Job and pods follow through the garbage collector.
      await this.custom.deleteNamespacedCustomObject({
        group: GROUP,
        version: VERSION,
        namespace,
        plural: pluralOf(resource),
        name,
        propagationPolicy: "Background",
        body: { preconditions },
      });
      return "deleted";
    } catch (err) {
      const status = httpStatus(err);
      if (status === 404) return "gone";
      if (status === 409) return "conflict";
      throw err;
    }
  }

  async createSecret(secret: V1Secret): Promise<"created" | "exists"> {
    const namespace = secret.metadata?.namespace ?? "";
    return (await ignore(this.core.createNamespacedSecret({ namespace, body: secret }), 409))
      ? "created"
      : "exists";
  }

  async applyStatus(resource: CausewayResource, status: OperatorStatus): Promise<StatusWrite> {
    const { name = "", namespace = "", resourceVersion } = resource.metadata;
    const plural = pluralOf(resource);
    // A resourceVersion in an apply body is a precondition: the server answers 409 when it moved on.
    const body = {
      apiVersion: API_VERSION,
      kind: resource.kind,
      metadata: { name, namespace, resourceVersion },
      status,
    };
    try {
      const written: unknown = await this.custom.patchNamespacedCustomObjectStatus(
        statusApply({ namespace, plural, name }, body, "operator"),
        applyPatch,
      );
      return { resourceVersion: (written as CausewayResource | null)?.metadata?.resourceVersion };
    } catch (err) {
      if (httpStatus(err) === 409) return "conflict";
      throw err;
    }
  }

  async createEvent(namespace: string, event: EventsV1Event): Promise<void> {
    await this.events.createNamespacedEvent({ namespace, body: event });
  }

  async patchEvent(namespace: string, name: string, patch: object): Promise<void> {
    await this.events.patchNamespacedEvent({ namespace, name, body: patch }, mergePatch);
  }
}

/** The plural of a resource's kind, as its API paths name it. */
function pluralOf(resource: CausewayResource): string {
  return resource.kind === "Prediction" ? RESOURCES.prediction.plural : RESOURCES.causal_analysis.plural;
}

/** metav1.MicroTime text (RFC 3339 with exactly six fractional digits), which the apiserver requires. */
export function microTime(ms: number): string {
  return new Date(ms).toISOString().replace(/\.(\d{3})Z$/, ".$1000Z");
}

/**
 * A LeaseStore on a coordination.k8s.io/v1 Lease. Times are MicroTime strings on the wire;
 * client-node types them as Date but passes unknown formats through untouched.
 */
export class KubeLeaseStore implements LeaseStore {
  private readonly api: CoordinationV1Api;
  private readonly namespace: string;
  private readonly name: string;

  constructor(kc: KubeConfig, namespace: string, name: string) {
    this.api = kc.makeApiClient(CoordinationV1Api);
    this.namespace = namespace;
    this.name = name;
  }

  async get(): Promise<LeaseRecord | null> {
    const lease = await orNull(this.api.readNamespacedLease({ namespace: this.namespace, name: this.name }));
    return lease ? fromLease(lease) : null;
  }

  async create(record: LeaseRecord): Promise<LeaseRecord> {
    try {
      return fromLease(
        await this.api.createNamespacedLease({ namespace: this.namespace, body: this.toLease(record) }),
      );
    } catch (err) {
      if (httpStatus(err) === 409) throw new LeaseConflict();
      throw err;
    }
  }

  async update(record: LeaseRecord): Promise<LeaseRecord> {
    try {
      const body = this.toLease(record);
      return fromLease(
        await this.api.replaceNamespacedLease({ namespace: this.namespace, name: this.name, body }),
      );
    } catch (err) {
      if (httpStatus(err) === 409) throw new LeaseConflict();
      throw err;
    }
  }

  private toLease(r: LeaseRecord): V1Lease {
    const time = (t: string | null): Date | undefined =>
      t ? (microTime(Date.parse(t)) as unknown as Date) : undefined;
    return {
      apiVersion: "coordination.k8s.io/v1",
      kind: "Lease",
      metadata: { name: this.name, namespace: this.namespace, resourceVersion: r.resourceVersion },
      spec: {
        holderIdentity: r.holderIdentity ?? undefined,
        leaseDurationSeconds: r.leaseDurationSeconds,
        acquireTime: time(r.acquireTime),
        renewTime: time(r.renewTime),
        leaseTransitions: r.leaseTransitions,
      },
    };
  }
}

function fromLease(lease: V1Lease): LeaseRecord {
  const iso = (t: unknown): string | null =>
    t === undefined || t === null
      ? null
      : new Date(String(t instanceof Date ? t.toISOString() : t)).toISOString();
  return {
    holderIdentity: lease.spec?.holderIdentity ?? null,
    leaseDurationSeconds: lease.spec?.leaseDurationSeconds ?? 15,
    acquireTime: iso(lease.spec?.acquireTime),
    renewTime: iso(lease.spec?.renewTime),
    leaseTransitions: lease.spec?.leaseTransitions ?? 0,
    resourceVersion: lease.metadata?.resourceVersion,
  };
}
