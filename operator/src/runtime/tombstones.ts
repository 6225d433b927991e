/**
 * The last state of deleted Jobs, from the Job informer's delete events. A Job may be deleted
 * (its `ttlSecondsAfterFinished`) before a pass has read its outcome; what a tombstone means is
 * reconcile's to say (`Observed.deletedJob`, invariant 9 of the README). Kept for a while and
 * bounded in number, oldest first out, so a burst of deletions cannot grow the heap without end.
 */
import type { V1Job } from "@kubernetes/client-node";
import type { Clock } from "./clock.ts";

/** How long the last state of a deleted Job is remembered, and how many are. */
export const TOMBSTONE_TTL_MS = 15 * 60_000;
export const TOMBSTONE_MAX = 2_000;

export class Tombstones {
  /** By namespace/name, in the order first remembered (which the pruning walks). */
  private readonly byName = new Map<string, { job: V1Job; at: number }>();

  private readonly clock: Clock;
  private readonly ttlMs: number;
  private readonly max: number;

  constructor(clock: Clock, ttlMs = TOMBSTONE_TTL_MS, max = TOMBSTONE_MAX) {
    this.clock = clock;
    this.ttlMs = ttlMs;
    this.max = max;
  }

  /** Remembers a deleted Job's final state, and forgets expired or surplus ones. */
  remember(job: V1Job): void {
    const now = this.clock.now();
    this.byName.set(`${job.metadata?.namespace}/${job.metadata?.name}`, { job: tombstoneOf(job), at: now });
    for (const [k, t] of this.byName) {
      if (now - t.at < this.ttlMs && this.byName.size <= this.max) break;
      this.byName.delete(k);
    }
  }

  /** The last state of the deleted Job `namespace/name`, or null. */
  get(namespace: string, name: string): V1Job | null {
    return this.byName.get(`${namespace}/${name}`)?.job ?? null;
  }

  get size(): number {
    return this.byName.size;
  }
}

/**
 * What a tombstone keeps of a Job: the fields the decisions read (ownership, the finished
 * conditions and counts, the deadline for its message, the timestamps). The pod template and
 * managedFields are most of a Job, and the store holds up to TOMBSTONE_MAX of them (the heap
 * this saves: adr/0003-own-writes-and-news.md).
 */
export function tombstoneOf(job: V1Job): V1Job {
  const m = job.metadata ?? {};
  return {
    apiVersion: job.apiVersion,
    kind: job.kind,
    metadata: {
      name: m.name,
      namespace: m.namespace,
      uid: m.uid,
      creationTimestamp: m.creationTimestamp,
      deletionTimestamp: m.deletionTimestamp,
      ownerReferences: m.ownerReferences,
    },
    spec: { activeDeadlineSeconds: job.spec?.activeDeadlineSeconds, template: {} },
    status: job.status,
  };
}
