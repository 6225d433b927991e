/**
 * What a prediction submission holds while it runs: its Idempotency-Key claim, the in-flight
 * reservation, the quota unit, the input objects it stored, and the temp directory of its upload. `release()` is the one
 * place they are given back, whatever ended the submission (a refused check, a fault, a client
 * that went away). Once the prediction's row is recorded the row owns the reservations and the
 * inputs (failing the job releases them exactly once); only the temp directory is left to remove.
 * The key claim is released unless the accepted response was recorded under it.
 */
import { EventEmitter } from "node:events";
import { mkdir, mkdtemp, rm } from "node:fs/promises";
import { join } from "node:path";
import type { FastifyBaseLogger } from "fastify";
import type { AppContext } from "../../context.ts";
import { consumeQuota, refundQuota } from "../../db/accounts.ts";
import { limitKeys } from "../../limits/limit-store.ts";
import type { IdempotencyClaim } from "./idempotency.ts";
import { uploadsDir } from "./work-dirs.ts";

/**
 * Tells submissions waiting for a quota unit (submission.ts) that a unit held by another
 * submission of the account was given back or kept: in this process at once; other replicas'
 * changes are seen at the waiters' next poll.
 */
const quotaChanges = new EventEmitter().setMaxListeners(0);
/** Quota units held by submissions in progress in this process, per account. */
const heldUnits = new Map<string, number>();

/** Units of `accountId` held by submissions still in progress here. */
export function heldQuotaUnits(accountId: string): number {
  return heldUnits.get(accountId) ?? 0;
}

function unhold(accountId: string, why: "refunded" | "kept"): void {
  const n = heldQuotaUnits(accountId) - 1;
  if (n > 0) heldUnits.set(accountId, n);
  else heldUnits.delete(accountId);
  quotaChanges.emit(accountId, why);
}

/**
 * Resolves when a held quota unit of `accountId` changes hands here: "refunded" (given back) or
 * "kept" (its prediction was recorded); "waited" after `ms` or when `signal` aborts.
 */
export function quotaChange(
  accountId: string,
  ms: number,
  signal: AbortSignal,
): Promise<"refunded" | "kept" | "waited"> {
  return new Promise((resolve) => {
    const done = (why: "refunded" | "kept" | "waited") => {
      clearTimeout(timer);
      quotaChanges.off(accountId, done);
      signal.removeEventListener("abort", waited);
      resolve(why);
    };
    const waited = () => done("waited");
    const timer = setTimeout(waited, ms);
    quotaChanges.on(accountId, done);
    signal.addEventListener("abort", waited, { once: true });
  });
}

export class SubmissionHolds {
  private readonly ctx: AppContext;
  private readonly accountId: string;
  private readonly predictionId: string;
  private readonly log: FastifyBaseLogger;
  private inflight = false;
  private quota = false;
  private inputPrefix: string | null = null;
  private dir: string | null = null;
  private ownedByRow = false;
  private claim: IdempotencyClaim | null = null;

  constructor(ctx: AppContext, accountId: string, predictionId: string, log: FastifyBaseLogger) {
    this.ctx = ctx;
    this.accountId = accountId;
    this.predictionId = predictionId;
    this.log = log;
  }

  /** Holds the request's Idempotency-Key claim (released unless its response gets recorded). */
  holdClaim(claim: IdempotencyClaim): void {
    this.claim = claim;
  }

  /** Records the accepted response under the held key, if any. */
  async recordResponse(status: number, body: unknown): Promise<void> {
    await this.claim?.record(status, body);
  }

  /** Takes an in-flight slot; false when the account is at its limit. */
  async reserveInflight(limit: number, ttlMs: number, nowMs: number): Promise<boolean> {
    const key = limitKeys.inflight(this.accountId);
    this.inflight = await this.ctx.limits.reserve(key, this.predictionId, limit, ttlMs, nowMs);
    return this.inflight;
  }

  /** Consumes one unit of the lifetime quota; false when it is used up. */
  async consumeQuota(defaultQuota: number): Promise<boolean> {
    if (this.quota) return true;
    this.quota = await consumeQuota(this.ctx.db, this.accountId, defaultQuota, {
      submissionId: this.predictionId,
      at: this.ctx.now(),
    });
    if (this.quota) heldUnits.set(this.accountId, heldQuotaUnits(this.accountId) + 1);
    return this.quota;
  }

  /** A fresh temp directory for the upload. */
  async tempDir(): Promise<string> {
    // Under the data directory's work folder, so a start after a crash finds and removes it.
    const root = uploadsDir(this.ctx.config.dataDir);
    await mkdir(root, { recursive: true, mode: 0o700 });
    this.dir = await mkdtemp(join(root, "upload-"));
    return this.dir;
  }

  /** Marks `prefix` as holding this submission's stored inputs (deleted unless the row takes them). */
  storeUnder(prefix: string): string {
    this.inputPrefix = prefix;
    return prefix;
  }

  /** The prediction's row is recorded: it owns the reservations and the inputs from now on. */
  handToRow(): void {
    this.ownedByRow = true;
    if (this.quota) unhold(this.accountId, "kept");
  }

  async release(): Promise<void> {
    if (!this.ownedByRow) {
      if (this.quota) {
        await refundQuota(this.ctx.db, this.accountId, this.predictionId).catch((err: unknown) =>
          this.log.error({ err }, "quota refund failed"),
        );
        unhold(this.accountId, "refunded");
      }
      if (this.inflight)
        await this.ctx.limits
          .release(limitKeys.inflight(this.accountId), this.predictionId)
          .catch((err: unknown) => this.log.error({ err }, "in-flight release failed"));
      if (this.inputPrefix) await this.ctx.store.deletePrefix(this.inputPrefix).catch(() => {});
    }
    // A no-op once the response was recorded; a failed or abandoned request frees its key.
    if (this.claim)
      await this.claim
        .release()
        .catch((err: unknown) => this.log.error({ err }, "idempotency key release failed"));
    // A leftover temp directory is the host's problem, not the client's: logged, not thrown.
    if (this.dir)
      await rm(this.dir, { recursive: true, force: true }).catch((err: unknown) =>
        this.log.warn({ err }, "removing the upload directory failed"),
      );
  }
}
