/**
 * A Kubernetes Event recorder (events.k8s.io/v1). client-node has none: this one
 * de-duplicates by (object, reason, note) and turns repeats into a `series` count instead of
 * new objects, keeps a bounded memory, and never throws: a lost Event must not fail a reconcile.
 */
import { randomBytes } from "node:crypto";
import type { EventsV1Event } from "@kubernetes/client-node";
import type { Logger } from "pino";
import type { CausewayResource } from "@causeway/contract";
import type { EventSpec } from "../reconcile/types.ts";
import type { Clock } from "./clock.ts";
import { microTime, type KubeGateway } from "./kube.ts";

/** Options of {@link EventRecorder}. */
export interface EventRecorderOptions {
  gateway: Pick<KubeGateway, "createEvent" | "patchEvent">;
  clock: Clock;
  log: Logger;
  /** The pod name of this replica. */
  instance: string;
  /** Repeats within this window become a series on the first Event. */
  windowMs?: number;
  maxEntries?: number;
}

/** `reportingController` of every Event this operator writes. */
export const REPORTING_CONTROLLER = "causeway.io/operator";

/** Records Events about resources. */
export class EventRecorder {
  private readonly o: Required<EventRecorderOptions>;
  private readonly seen = new Map<
    string,
    { name: string; namespace: string; count: number; first: number }
  >();

  constructor(options: EventRecorderOptions) {
    this.o = { windowMs: 10 * 60_000, maxEntries: 1000, ...options };
  }

  async record(resource: CausewayResource, ev: EventSpec): Promise<void> {
    const { name = "", namespace = "default", uid = "" } = resource.metadata;
    const key = `${uid}|${ev.reason}|${ev.note}`;
    const now = this.o.clock.now();
    const prev = this.seen.get(key);
    try {
      if (prev && now - prev.first < this.o.windowMs) {
        prev.count += 1;
        await this.o.gateway.patchEvent(prev.namespace, prev.name, {
          series: { count: prev.count, lastObservedTime: microTime(now) },
        });
        return;
      }
      const eventName = `${name}.${now.toString(16)}${randomBytes(3).toString("hex")}`;
      const event: EventsV1Event = {
        apiVersion: "events.k8s.io/v1",
        kind: "Event",
        metadata: { name: eventName, namespace },
        // MicroTime is a string on the wire; client-node passes it through (see kube.ts).
        eventTime: microTime(now) as unknown as Date,
        reportingController: REPORTING_CONTROLLER,
        reportingInstance: this.o.instance.slice(0, 128),
        action: "Reconcile",
        reason: ev.reason,
        note: ev.note.slice(0, 1024),
        type: ev.type,
        regarding: { apiVersion: resource.apiVersion, kind: resource.kind, name, namespace, uid },
      };
      await this.o.gateway.createEvent(namespace, event);
      this.remember(key, { name: eventName, namespace, count: 1, first: now });
    } catch (err) {
      this.o.log.warn({ err, reason: ev.reason, name, namespace }, "could not record event");
    }
  }

  /** Entries remembered (bounded by maxEntries). */
  get size(): number {
    return this.seen.size;
  }

  private remember(
    key: string,
    entry: { name: string; namespace: string; count: number; first: number },
  ): void {
    this.seen.delete(key);
    this.seen.set(key, entry);
    // Map iteration order is insertion order: the first key is the oldest.
    while (this.seen.size > this.o.maxEntries) {
      const oldest = this.seen.keys().next().value;
      if (oldest === undefined) break;
      this.seen.delete(oldest);
    }
  }
}
