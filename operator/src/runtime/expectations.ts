/**
 * Own-write expectations, after kueue's `pkg/util/expectations` store and controller-runtime's
 * ControllerExpectations: the writes the controller made and has yet to see in its watch, so
 * that each watch event can be told apart as the echo of its own write or as news. The
 * controller keeps one store per kind of write (status writes by queue key, Job creates by
 * namespace/name) and asks it one question per event.
 *
 * A write has two phases. While it is on its way its resourceVersion is unknown, yet the watch
 * may already deliver it: events for the key are held (`hold`) and sorted once the answer is in
 * (`settle`). After the answer, a version whose event has not come yet is expected, and the next
 * event for the key settles the expectation (`observe`): a watch delivers one key's versions in
 * order, so any other version means the expected one will not be seen on its own.
 *
 * An update also leaves the cache behind: until its event arrives, the cached copy is the
 * version it replaced, and a pass on that copy would only meet a conflict. `isSuperseded` says
 * so; work found meanwhile is put off (`defer`) and handed back with the write's own event.
 */

/**
 * Work put off until the cache holds the own write: `always` runs then; `unlessTerminal` is
 * dropped when that write made the resource terminal (a pod event, a finished Job).
 */
export type DeferredWork = "always" | "unlessTerminal";

/** What an event that was not held turned out to be. */
export interface Observation {
  /** The event of the store's own expected write. */
  own: boolean;
  /** Work deferred to that event (only with `own`). */
  deferred?: DeferredWork;
}

/** How the events held during a write sort out once its answer is in. */
export interface Settled {
  /** How many held events were the write's own. */
  own: number;
  /** The versions of held events that are news, in arrival order. */
  news: string[];
}

export class Expectations {
  /** Writes on their way, with the versions their key's watch events brought meanwhile. */
  private readonly held = new Map<string, string[]>();
  /** The version an own write produced whose watch event has not come yet. */
  private readonly expected = new Map<string, string>();
  /** The version an own update replaced: a cached copy still at it is stale. */
  private readonly superseded = new Map<string, string>();
  private readonly deferred = new Map<string, DeferredWork>();

  /** A write to `key` is on its way: its watch events are held until `settle`. */
  begin(key: string): void {
    this.held.set(key, []);
  }

  /** Holds an event that arrives while a write to `key` is on its way; false when none is. */
  hold(key: string, version: string): boolean {
    const held = this.held.get(key);
    held?.push(version);
    return held !== undefined;
  }

  /**
   * A create's answer (`version`: what it produced; undefined when it failed): sorts the held
   * events and expects the create's own event if it has not come yet.
   */
  settle(key: string, version: string | undefined): Settled {
    const settled = this.release(key, version);
    if (version !== undefined && settled.own === 0) this.expected.set(key, version);
    return settled;
  }

  /**
   * An update's answer, with the version it replaced. An update that produced no new version
   * (server-side apply of unchanged fields) has no event to wait for; otherwise, until its event
   * comes, a cached copy at `replaced` is known stale.
   */
  settleUpdate(key: string, version: string | undefined, replaced: string | undefined): Settled {
    const settled = this.release(key, version);
    if (version !== undefined && replaced !== undefined && version !== replaced && settled.own === 0) {
      this.expected.set(key, version);
      this.superseded.set(key, replaced);
    }
    return settled;
  }

  /**
   * An event for `key` that was not held (pass `version` only for event types a write of this
   * store produces). It settles the expectation either way, and hands back work deferred to it;
   * work deferred to an event that is not the own one is dropped, as the pass that event runs
   * does it. Only the own event clears the superseded copy.
   */
  observe(key: string, version: string | undefined): Observation {
    const expected = this.expected.get(key);
    const deferred = this.deferred.get(key);
    this.expected.delete(key);
    this.deferred.delete(key);
    if (expected === undefined || expected !== version) return { own: false };
    this.superseded.delete(key);
    return deferred === undefined ? { own: true } : { own: true, deferred };
  }

  /** True when a cached copy at `version` is one an own update has replaced. */
  isSuperseded(key: string, version: string | undefined): boolean {
    return version !== undefined && this.superseded.get(key) === version;
  }

  /** Puts work off until the own update's event; `always` outranks `unlessTerminal`. */
  defer(key: string, work: DeferredWork): void {
    if (this.deferred.get(key) !== "always") this.deferred.set(key, work);
  }

  /** A pass runs on a copy that is not superseded: it sees the newer state and does deferred work. */
  current(key: string): void {
    this.superseded.delete(key);
    this.deferred.delete(key);
  }

  /** The object is gone: nothing about it is awaited any more. */
  forget(key: string): void {
    this.expected.delete(key);
    this.current(key);
  }

  /** True when nothing about `key` is awaited or put off (kueue's `Satisfied`). */
  satisfied(key: string): boolean {
    return ![this.held, this.expected, this.superseded, this.deferred].some((m) => m.has(key));
  }

  /** How many keys have something awaited or put off (a leak shows here first). */
  get size(): number {
    return new Set([
      ...this.held.keys(),
      ...this.expected.keys(),
      ...this.superseded.keys(),
      ...this.deferred.keys(),
    ]).size;
  }

  private release(key: string, version: string | undefined): Settled {
    const held = this.held.get(key) ?? [];
    this.held.delete(key);
    const news = held.filter((v) => v !== version);
    return { own: held.length - news.length, news };
  }
}
