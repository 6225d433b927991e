/**
 * A hardened informer over client-node's ListWatch (which already relists on 410 and
 * reconnects after its 30 s inactivity timeout). On top of it: restart with backoff after any
 * other error (ListWatch stops for good on those), a full relist every ~10 minutes with
 * jitter, and a restart when nothing — neither an event nor a reconnect — has been seen for
 * `staleAfterMs`. A restart builds a fresh ListWatch, swaps it in once its list succeeded,
 * and reports objects that vanished in between as deletes, so no transition is missed.
 */
import {
  ListWatch,
  Watch,
  type KubeConfig,
  type KubernetesListObject,
  type KubernetesObject,
} from "@kubernetes/client-node";
import type { Logger } from "pino";
import type { Clock } from "./clock.ts";

/** What happened to a cached object. */
export type InformerEvent = "add" | "update" | "delete";
/** Why a watch was rebuilt (the `cause` label of causeway_watch_restarts_total). */
export type RestartCause = "error" | "stale" | "relist";

/** Options of {@link ResilientInformer}. */
export interface InformerOptions<T extends KubernetesObject> {
  name: string;
  kc: KubeConfig;
  /** Watch path, e.g. /apis/causeway.io/v1/namespaces/ns/predictions. */
  path: string;
  list: () => Promise<KubernetesListObject<T>>;
  labelSelector?: string;
  clock: Clock;
  log: Logger;
  relistIntervalMs: number;
  staleAfterMs: number;
  backoffBaseMs: number;
  backoffMaxMs: number;
  onEvent: (type: InformerEvent, obj: T) => void;
  /**
   * Trims an object in place as it enters the cache (controller-runtime's TransformFunc): the
   * cache keeps client-node's very object, and fields nothing reads (managedFields, a Job's pod
   * template) are most of its memory at a thousand Jobs and pods.
   */
  trim?: (obj: T) => void;
  onRestart?: (cause: RestartCause) => void;
}

const keyOf = (o: KubernetesObject): string => `${o.metadata?.namespace ?? ""}/${o.metadata?.name ?? ""}`;

/** One resource's cache and event source. */
export class ResilientInformer<T extends KubernetesObject> {
  private readonly o: InformerOptions<T>;
  private current: ListWatch<T> | null = null;
  /** The ListWatch being started: its list's events arrive before it becomes `current`. */
  private pending: ListWatch<T> | null = null;
  private readonly live = new Set<ListWatch<T>>();
  private failures = 0;
  private stopped = true;
  private restarting = false;
  private relistTimer: unknown = null;
  private staleTimer: unknown = null;
  private retryTimer: unknown = null;
  /** When an event or (re)connect was last seen. */
  lastSeenAt = 0;
  synced = false;

  constructor(options: InformerOptions<T>) {
    this.o = options;
  }

  /** Starts watching; resolves once the first list succeeded (retrying in the background otherwise). */
  async start(): Promise<void> {
    this.stopped = false;
    this.lastSeenAt = this.o.clock.now();
    this.scheduleRelist();
    this.scheduleStaleCheck();
    await this.restart(null);
  }

  async stop(): Promise<void> {
    this.stopped = true;
    for (const t of [this.relistTimer, this.staleTimer, this.retryTimer])
      if (t !== null) this.o.clock.clearTimeout(t);
    const all = [...this.live];
    this.live.clear();
    this.current = null;
    await Promise.all(all.map((lw) => lw.stop()));
  }

  /** Cached objects (of one namespace, if given). */
  list(namespace?: string): readonly T[] {
    return this.current?.list(namespace) ?? [];
  }

  /**
   * A cached object. The ListWatch being (re)started is asked first: the events of its list
   * (every object, at start and at each relist) are handled before it replaces `current`, and
   * a handler reading the cache must find the object the event was about.
   */
  get(name: string, namespace?: string): T | undefined {
    return this.pending?.get(name, namespace) ?? this.current?.get(name, namespace);
  }

  /** True when the watch has been silent for longer than allowed. */
  isStale(now: number = this.o.clock.now()): boolean {
    return !this.stopped && now - this.lastSeenAt > this.o.staleAfterMs;
  }

  private seen(): void {
    this.lastSeenAt = this.o.clock.now();
  }

  /** Builds a fresh ListWatch and swaps it in once its initial list succeeded. */
  private async restart(cause: RestartCause | null): Promise<void> {
    if (this.stopped || this.restarting) return;
    this.restarting = true;
    if (cause) {
      this.o.onRestart?.(cause);
      this.o.log.info({ informer: this.o.name, cause }, "restarting watch");
    }
    const lw = new ListWatch<T>(this.o.path, new Watch(this.o.kc), this.o.list, false, this.o.labelSelector);
    let failed: unknown = null;
    const forward = (type: InformerEvent) => (obj: T) => {
      if (!this.live.has(lw)) return;
      this.seen();
      if (type !== "delete") this.o.trim?.(obj);
      this.o.onEvent(type, obj);
    };
    lw.on("add", forward("add"));
    lw.on("update", forward("update"));
    lw.on("delete", forward("delete"));
    lw.on("connect", () => {
      if (this.live.has(lw)) this.seen();
    });
    lw.on("error", (err: unknown) => {
      failed = err ?? new Error("watch failed");
      if (this.current === lw) this.onWatchError(err);
    });
    this.live.add(lw);
    this.pending = lw;
    try {
      // A list that never answers must not block every later restart (stale checks included).
      await withTimeout(lw.start(), this.o.staleAfterMs, this.o.clock);
    } catch (err) {
      failed = err;
    } finally {
      this.restarting = false;
      if (this.pending === lw) this.pending = null;
    }
    if (this.stopped) {
      this.live.delete(lw);
      await lw.stop();
      return;
    }
    if (failed) {
      this.live.delete(lw);
      await lw.stop();
      this.onWatchError(failed);
      return;
    }
    const previous = this.current;
    this.current = lw;
    this.failures = 0;
    this.synced = true;
    this.seen();
    if (previous) {
      this.live.delete(previous);
      await previous.stop();
      // Objects deleted while the old watch was broken never produced a delete event.
      const now = new Set(lw.list().map(keyOf));
      for (const obj of previous.list()) if (!now.has(keyOf(obj))) this.o.onEvent("delete", obj);
    }
  }

  private onWatchError(err: unknown): void {
    if (this.stopped) return;
    this.failures += 1;
    const delay = Math.min(this.o.backoffMaxMs, this.o.backoffBaseMs * 2 ** (this.failures - 1));
    this.o.log.warn({ informer: this.o.name, err, retryInMs: delay }, "watch failed");
    if (this.retryTimer !== null) this.o.clock.clearTimeout(this.retryTimer);
    this.retryTimer = this.o.clock.setTimeout(() => {
      this.retryTimer = null;
      void this.restart("error");
    }, delay);
  }

  private scheduleRelist(): void {
    const jittered = this.o.relistIntervalMs * (0.9 + Math.random() * 0.2);
    this.relistTimer = this.o.clock.setTimeout(() => {
      void this.restart("relist").finally(() => {
        if (!this.stopped) this.scheduleRelist();
      });
    }, jittered);
  }

  private scheduleStaleCheck(): void {
    this.staleTimer = this.o.clock.setTimeout(
      () => {
        if (this.isStale()) void this.restart("stale");
        if (!this.stopped) this.scheduleStaleCheck();
      },
      Math.max(1000, this.o.staleAfterMs / 4),
    );
  }
}

function withTimeout<T>(p: Promise<T>, ms: number, clock: Clock): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    const timer = clock.setTimeout(() => reject(new Error(`no answer within ${ms} ms`)), ms);
    p.then(
      (v) => {
        clock.clearTimeout(timer);
        resolve(v);
      },
      (err: unknown) => {
        clock.clearTimeout(timer);
        reject(err instanceof Error ? err : new Error(String(err)));
      },
    );
  });
}
