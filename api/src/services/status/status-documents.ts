/**
 * Finished predictions never change, so their status body at the contract's default preview
 * sizes is rendered once (in a worker thread, at completion or on the first poll), stored as
 * JSON beside the job's artifacts, and then served as bytes: no re-reading of artifacts, no
 * response validation over megabyte matrices, no JSON.stringify on the event loop. Only the
 * download links change between polls; they are signed once per half of their lifetime and
 * spliced into the stored body. ETag/If-None-Match and gzip (compressed once, off the event
 * loop, in the background: until it is ready the body goes out uncompressed) come on top.
 *
 * Stored object: `{"format":1,"tier":…,"head":…,"etag":…,"body":<the status body>}` where the
 * body's download links are empty strings. `head` fingerprints the row fields the body was
 * rendered from, so a changed row (or tier) is re-rendered instead of served stale.
 */
import { createHash } from "node:crypto";
import { Readable } from "node:stream";
import type { FastifyBaseLogger } from "fastify";
import { ARTIFACTS, attemptPrefix } from "@causeway/contract";
import { ObjectNotFound, type ObjectStore } from "@causeway/runner/storage";
import { StorageUnavailable } from "./artifacts.ts";
import type { Account, Tier } from "../../db/accounts.ts";
import type { Queryable } from "../../db/database.ts";
import { predictionWithTier, type PredictionRow, type ResultFileMap } from "../../db/jobs.ts";
import { artifactLinks, primaryPrefix } from "./present.ts";
import { WorkerCalls } from "./worker-calls.ts";
import { WorkGate, underGate, type HeavyReadLimits } from "../../limits/work-gate.ts";
import { RENDER_IDLE_MS, RenderCache } from "./render-cache.ts";
import type { RenderRequest, RenderResponse, StatusSizes } from "./status-body-worker.ts";
import type { GzipRequest, GzipResponse } from "./status-gzip-worker.ts";
import { BODY_MARK, headOf, parseStored, storedKey, type Loaded } from "./stored-status-body.ts";

export { isDefaultStatusQuery } from "./stored-status-body.ts";

/** A status body ready to send. */
export interface ServedStatus {
  etag: string;
  body: Buffer;
  /** The body gzip-compressed (computed once, in the compression worker at the lowest priority). */
  gzipped(): Promise<Buffer>;
  /**
   * Stored bodies only: the gzipped body once its compression (started when the body was made)
   * has finished, else undefined and the body is sent as it is. Compressing 13 MB takes about a
   * third of a second, which the first poll after completion should not wait for.
   */
  gzippedIfReady?: () => Buffer | undefined;
}

/**
 * A body not read for this long leaves memory (at the next sweep, every half of it): clients poll
 * a job while it runs and just after it completes, then rarely; a later read loads the stored
 * copy again (milliseconds). An idle server otherwise kept its last bodies, ~35 MB for one Kang job.
 */
export const BODY_IDLE_MS = 30_000;

export interface StatusDocumentsDeps {
  store: ObjectStore;
  db: Queryable;
  presignTtlSeconds: number;
  now: () => Date;
  log: FastifyBaseLogger;
  /**
   * Bytes of stored bodies kept in memory (least recently used dropped first); each body may
   * also hold a copy with its links and a gzipped copy, so memory use is up to about twice this.
   */
  cacheBytes?: number;
  /** A body not read for this long leaves memory (default BODY_IDLE_MS). */
  idleMs?: number;
  /** The gate and cache of status bodies at other sizes than the defaults. */
  heavyReads?: HeavyReadLimits;
}

const DEFAULT_HEAVY_READS: HeavyReadLimits = {
  total: 2,
  perAccount: 1,
  queuedPerAccount: 2,
  cacheBytes: 64 * 1024 * 1024,
};

export class StatusDocuments {
  private readonly deps: StatusDocumentsDeps;
  private readonly cache = new Map<string, Loaded>();
  private cachedBytes = 0;
  private sweepTimer: NodeJS.Timeout | undefined;
  private readonly pending = new Map<string, Promise<Loaded | null>>();
  private readonly links = new Map<string, { expiresAtMs: number; links: { name: string; url: string }[] }>();
  /** Writes of rendered bodies to the store still under way (close() waits for them). */
  private readonly storing = new Set<Promise<void>>();
  /** Renders bodies. */
  private readonly renderer = new WorkerCalls<RenderRequest, RenderResponse>(
    new URL("./status-body-worker.ts", import.meta.url),
  );
  /** Compresses bodies: apart, so a compression never holds up the next job's render. */
  private readonly compressor = new WorkerCalls<GzipRequest, GzipResponse>(
    new URL("./status-gzip-worker.ts", import.meta.url),
  );

  /** Renders at other sizes: accounted work (limits/work-gate.ts). */
  readonly sizedGate: WorkGate;
  /**
   * Their workers, one per gate slot: two accounts' large reads render side by side instead of
   * one after the other in the worker of completion renders.
   */
  private readonly sizedRenderers: WorkerCalls<RenderRequest, RenderResponse>[];
  /** And their compressors: one account's large reads never queue another's gzip behind theirs. */
  private readonly sizedCompressors: WorkerCalls<GzipRequest, GzipResponse>[];
  /** Bodies at other sizes, with their links, by request; the links stay valid while kept. */
  private readonly sized: RenderCache<Loaded>;

  constructor(deps: StatusDocumentsDeps) {
    this.deps = deps;
    const heavy = deps.heavyReads ?? DEFAULT_HEAVY_READS;
    this.sizedGate = new WorkGate(heavy);
    this.sizedRenderers = Array.from(
      { length: heavy.total },
      () =>
        new WorkerCalls<RenderRequest, RenderResponse>(new URL("./status-body-worker.ts", import.meta.url)),
    );
    this.sizedCompressors = Array.from(
      { length: heavy.total },
      () => new WorkerCalls<GzipRequest, GzipResponse>(new URL("./status-gzip-worker.ts", import.meta.url)),
    );
    this.sized = new RenderCache<Loaded>({
      maxBytes: heavy.cacheBytes,
      idleMs: Math.min(RENDER_IDLE_MS, (deps.presignTtlSeconds * 1000) / 2),
      sizeOf: (doc) => doc.body.length,
    });
  }

  /** A prediction's row with its account's tier. */
  private async rowWithTier(predictionId: string): Promise<(PredictionRow & { tier: Tier }) | undefined> {
    return (await predictionWithTier(this.deps.db, predictionId)) ?? undefined;
  }

  /** At completion: render and store the body now, so the first poll finds it. Never throws. */
  async completed(predictionId: string): Promise<void> {
    try {
      const row = await this.rowWithTier(predictionId);
      if (!row || row.status !== "completed") return;
      const { tier, ...p } = row;
      // Links and the compressed copy wait for the first poll: many jobs are only read with
      // small previews, and those copies would hold memory and CPU for nothing.
      await this.document(p, tier);
    } catch (err) {
      this.deps.log.warn({ err, prediction_id: predictionId }, "status body not stored; polls render it");
    }
  }

  /**
   * When a running prediction's scores are written (the runner then spends a while on the
   * causal analysis and the graph): its previews, the bulk of its status body, are made now,
   * from the files the attempt wrote, so the render at completion only adds the row's fields.
   * Speculative: the completion render uses them only if it reads the same bytes. Never throws.
   */
  async scoresWritten(predictionId: string, attempt: string): Promise<void> {
    try {
      const row = await this.rowWithTier(predictionId);
      if (!row || row.status !== "processing") return;
      // The primary result set of a single contrast (prefix ""); other layouts are simply not prepared.
      const base = `${attemptPrefix(row.spec.output_prefix, attempt)}/`;
      const files: ResultFileMap = {};
      const objects: Record<string, Uint8Array> = {};
      for (const name of [
        ARTIFACTS.targetScores,
        ARTIFACTS.sourceInfluenceMatrix,
        ARTIFACTS.sourceInfluenceIds,
      ]) {
        files[name] = base + name;
        objects[base + name] = await this.deps.store.get(base + name);
      }
      await this.renderer.call({ kind: "prepare", predictionId, tier: row.tier, files, objects });
    } catch (err) {
      if (!(err instanceof ObjectNotFound))
        this.deps.log.debug({ err, prediction_id: predictionId }, "status previews not prepared");
    }
  }

  /**
   * The status body of a completed prediction at the default preview sizes, or null when it
   * cannot be stored (the caller renders it the ordinary way).
   */
  async serve(p: PredictionRow, account: Account): Promise<ServedStatus | null> {
    if (p.status !== "completed") return null;
    const doc = await this.document(p, account.tier);
    if (!doc) return null;
    const nowMs = this.deps.now().getTime();
    if (doc.served && doc.served.expiresAtMs > nowMs) return doc.served;
    // One copy with links (and one compression) for the polls arriving together, e.g. the
    // completion's own call and the first poll.
    doc.serving ??= this.withStoredLinks(p, account, doc, nowMs).finally(() => (doc.serving = undefined));
    return doc.serving;
  }

  private async withStoredLinks(
    p: PredictionRow,
    account: Account,
    doc: Loaded,
    nowMs: number,
  ): Promise<ServedStatus | null> {
    const served = await this.withLinks(p, account, doc, nowMs, (body) => this.compress(body));
    if (!served) return null;
    let ready: Buffer | undefined;
    served
      .gzipped()
      .then((z) => (ready = z))
      .catch((err: unknown) =>
        this.deps.log.warn({ err, prediction_id: p.id }, "status body not compressed"),
      );
    served.gzippedIfReady = () => ready;
    doc.served = served;
    return served;
  }

  /**
   * The status body of a completed prediction at other preview sizes (or with `?target=`),
   * rendered in a worker thread instead of on the event loop (eight such reads at once held
   * /health for over half a second when they were built inline), under the heavy-read gate, and
   * kept in memory by request for a while. Not stored (the sizes vary).
   */
  async serveAt(p: PredictionRow, account: Account, sizes: StatusSizes): Promise<ServedStatus | null> {
    if (p.status !== "completed") return null;
    const head = await headOf(this.deps.store, p, account.tier);
    const key = JSON.stringify([p.id, account.tier, head, sizes]);
    // One render for equal requests arriving together or within a while; the gate bounds the
    // renders one account (and all of them) may have running or waiting.
    const doc = await this.sized.get(key, () =>
      underGate(this.sizedGate, account.id, async () => {
        const rendered = await this.render(p, account.tier, sizes);
        const made: Loaded = rendered
          ? { tier: account.tier, head, etag: rendered.etag, body: rendered.body }
          : { tier: account.tier, head, etag: "", body: Buffer.alloc(0) };
        return made;
      }),
    );
    if (doc.etag === "") return null;
    const nowMs = this.deps.now().getTime();
    if (doc.served && doc.served.expiresAtMs > nowMs) return doc.served;
    // Compressed at the lowest priority too: eight large reads at once would otherwise keep both
    // cores busy with gzip beside the event loop.
    const compressor = leastBusy(this.sizedCompressors);
    doc.serving ??= this.withLinks(p, account, doc, nowMs, (body) => this.compress(body, compressor))
      .then((served) => {
        doc.served = served ?? undefined;
        return served;
      })
      .finally(() => (doc.serving = undefined));
    return (await doc.serving) ?? null;
  }

  /**
   * Signed download links of a job's files, cached for half their lifetime (a served link is
   * always valid for at least half the configured TTL).
   */
  async signedLinks(jobId: string, files: ResultFileMap): Promise<{ name: string; url: string }[]> {
    const nowMs = this.deps.now().getTime();
    const hit = this.links.get(jobId);
    if (hit && hit.expiresAtMs > nowMs) return hit.links;
    const links = await artifactLinks(this.deps.store, files, this.deps.presignTtlSeconds);
    for (const [id, l] of this.links) if (l.expiresAtMs <= nowMs) this.links.delete(id);
    this.links.set(jobId, { expiresAtMs: nowMs + (this.deps.presignTtlSeconds * 1000) / 2, links });
    return links;
  }

  async close(): Promise<void> {
    clearTimeout(this.sweepTimer);
    this.sized.clear();
    await Promise.all([
      this.renderer.close(),
      this.compressor.close(),
      ...this.sizedRenderers.map((r) => r.close()),
      ...this.sizedCompressors.map((c) => c.close()),
      ...this.storing,
    ]);
  }

  /** Bodies held in memory (diagnostics and tests). */
  get cachedBodies(): number {
    return this.cache.size;
  }

  private async withLinks(
    p: PredictionRow,
    account: Account,
    doc: Loaded,
    nowMs: number,
    compress: (body: Buffer) => Promise<Buffer>,
  ): Promise<(ServedStatus & { expiresAtMs: number }) | null> {
    const files = p.result_files ?? {};
    const withArtifacts =
      !(account.tier !== "internal" && p.job_type === "target_validation") && Object.keys(files).length > 0;
    let body = doc.body;
    let linkTag = "";
    let expiresAtMs = Number.MAX_SAFE_INTEGER;
    if (withArtifacts) {
      const names = Object.keys(files).sort();
      const blank = Buffer.from(`"artifacts":${JSON.stringify(names.map((name) => ({ name, url: "" })))}`);
      const at = doc.body.lastIndexOf(blank);
      if (at < 0) return null;
      const links = await this.signedLinks(p.id, files);
      const filled = `"artifacts":${JSON.stringify(links.map((l) => ({ name: l.name, url: l.url })))}`;
      body = Buffer.concat([
        doc.body.subarray(0, at),
        Buffer.from(filled),
        doc.body.subarray(at + blank.length),
      ]);
      linkTag = "-" + createHash("sha256").update(filled).digest("base64url").slice(0, 16);
      expiresAtMs = this.links.get(p.id)?.expiresAtMs ?? nowMs;
    }
    let compressed: Promise<Buffer> | undefined;
    return {
      etag: `"${doc.etag}${linkTag}"`,
      body,
      expiresAtMs,
      gzipped: () => (compressed ??= compress(body)),
    };
  }

  /** The stored body: memory, then the object store, then rendered and stored (once at a time). */
  private async document(p: PredictionRow, tier: Tier): Promise<Loaded | null> {
    const head = await headOf(this.deps.store, p, tier);
    const cached = this.cache.get(p.id);
    if (cached && cached.tier === tier && cached.head === head) {
      // Most recently used last.
      this.cache.delete(p.id);
      this.cache.set(p.id, cached);
      cached.usedAt = performance.now();
      return cached;
    }
    const flight = `${p.id}:${tier}:${head}`;
    let job = this.pending.get(flight);
    if (!job) {
      job = this.loadOrRender(p, tier, head).finally(() => this.pending.delete(flight));
      this.pending.set(flight, job);
    }
    const doc = await job;
    if (doc) this.remember(p.id, doc);
    return doc;
  }

  private async loadOrRender(p: PredictionRow, tier: Tier, head: string): Promise<Loaded | null> {
    const key = storedKey(p, tier);
    if (!key) return null;
    try {
      const raw = await this.deps.store.get(key);
      const doc = parseStored(raw);
      if (doc && doc.tier === tier && doc.head === head) return doc;
    } catch (err) {
      if (!(err instanceof ObjectNotFound)) throw new StorageUnavailable(err);
    }
    const rendered = await this.render(p, tier);
    if (!rendered) return null;
    const doc: Loaded = { tier, head, etag: rendered.etag, body: rendered.body };
    const meta = JSON.stringify({ format: 1, tier, head, etag: rendered.etag });
    // Storing is an optimisation: the rendered body is served even when the store refuses it,
    // and without waiting for the write (tens of milliseconds for 13 MB): the first poll after
    // completion is waiting for it.
    const storing = this.deps.store
      .put(
        key,
        // In parts, not one more 13 MB copy on the event loop.
        Readable.from([Buffer.from(meta.slice(0, -1)), BODY_MARK, rendered.body, Buffer.from("}")], {
          objectMode: false,
        }),
        "application/json",
      )
      .catch((err: unknown) => this.deps.log.warn({ prediction_id: p.id, err }, "status body not stored"))
      .finally(() => this.storing.delete(storing));
    this.storing.add(storing);
    return doc;
  }

  private async render(
    p: PredictionRow,
    tier: Tier,
    sizes?: StatusSizes,
  ): Promise<{ body: Buffer; etag: string } | null> {
    const files = p.result_files ?? {};
    const prefix = primaryPrefix(p);
    const objects: Record<string, Uint8Array> = {};
    for (const name of [
      ARTIFACTS.targetScores,
      ARTIFACTS.sourceInfluenceMatrix,
      ARTIFACTS.sourceInfluenceIds,
      ARTIFACTS.targetValidation,
    ]) {
      const key = files[prefix + name];
      if (!key) continue;
      try {
        objects[key] = await this.deps.store.get(key);
      } catch (err) {
        // A missing artifact renders as today (a null section); a store that does not answer is a 503.
        if (!(err instanceof ObjectNotFound)) throw new StorageUnavailable(err);
      }
    }
    const worker = sizes ? leastBusy(this.sizedRenderers) : this.renderer;
    const res = await worker.call({ row: p, tier, objects, ...(sizes ? { sizes } : {}) });
    if (!res.ok) {
      this.deps.log.warn({ prediction_id: p.id, reason: res.message }, "status body not rendered");
      return null;
    }
    if (!("body" in res)) return null;
    return { body: Buffer.from(res.body.buffer, res.body.byteOffset, res.body.byteLength), etag: res.etag };
  }

  /** gzip in its worker thread, at the lowest priority. */
  private async compress(body: Buffer, compressor = this.compressor): Promise<Buffer> {
    const res = await compressor.call({ bytes: body });
    if (!res.ok) throw new Error(res.message);
    return Buffer.from(res.gzipped.buffer, res.gzipped.byteOffset, res.gzipped.byteLength);
  }

  private remember(id: string, doc: Loaded): void {
    const old = this.cache.get(id);
    if (old) this.cachedBytes -= old.body.length;
    this.cache.delete(id);
    doc.usedAt = performance.now();
    this.cache.set(id, doc);
    this.cachedBytes += doc.body.length;
    const budget = this.deps.cacheBytes ?? 128 * 1024 * 1024;
    for (const [key, d] of this.cache) {
      if (this.cachedBytes <= budget || key === id) break;
      this.forget(key, d);
    }
    this.scheduleSweep();
  }

  private forget(id: string, doc: Loaded): void {
    this.cache.delete(id);
    this.cachedBytes -= doc.body.length;
  }

  /** Drops the bodies not used for `idleMs`, then looks again while any are left. */
  private scheduleSweep(): void {
    if (this.sweepTimer !== undefined || this.cache.size === 0) return;
    const idleMs = this.deps.idleMs ?? BODY_IDLE_MS;
    this.sweepTimer = setTimeout(() => {
      this.sweepTimer = undefined;
      const now = performance.now();
      for (const [id, doc] of this.cache) if (now - (doc.usedAt ?? 0) >= idleMs) this.forget(id, doc);
      this.scheduleSweep();
    }, idleMs / 2);
    this.sweepTimer.unref();
  }
}

/** The worker with the fewest calls waiting. */
function leastBusy<W extends { pending: number }>(workers: W[]): W {
  return workers.reduce((a, b) => (b.pending < a.pending ? b : a));
}
