/**
 * Idempotent submissions (the IETF httpapi Idempotency-Key draft): the first request with a key
 * claims it; a retry with the same key and the same request fingerprint gets the first response
 * again without running anything; the same key with another request is a 422; a retry while the
 * first request still runs is a 409. Keys are per account and live 24 hours.
 *
 * Only accepted submissions are stored. A first request that failed (422, 413, 429, 503, a client
 * that went away) created nothing a client could lose, so its claim is released and a corrected
 * retry with the same key runs as new.
 */
import { randomUUID } from "node:crypto";
import type { z } from "zod";
import type { AppContext } from "../../context.ts";
import {
  claimIdempotencyKey,
  deleteExpiredIdempotencyKeys,
  recordIdempotentResponse,
  releaseIdempotencyKey,
  type StoredResponse,
} from "../../db/idempotency.ts";
import { IdempotencyKeyInUse, RequestValidationError, withRetryAfter } from "../../errors.ts";

export const IDEMPOTENCY_TTL_MS = 24 * 60 * 60 * 1000;

/** What a submission route knows of its request's Idempotency-Key. */
export interface IdempotentRequest {
  key: string;
  /**
   * The request's fingerprint. Once the body was received it is the hash taken while receiving;
   * before, it reads the body only to hash it (a retry of a stored request): nothing is kept.
   */
  fingerprint: () => Promise<string>;
}

/** A response as the route sends it; `replayed` when it is the stored answer of an earlier request. */
export interface SubmissionReply<T> {
  status: number;
  body: T;
  replayed: boolean;
}

export function idempotencyMismatch(): RequestValidationError {
  return new RequestValidationError([
    {
      loc: ["header", "idempotency-key"],
      msg: "this Idempotency-Key was already used with a different request; use a new key for a new request",
      type: "idempotency_key_mismatch",
    },
  ]);
}

/** A claimed key: record the response at the end, or release it (idempotent, no-op once recorded). */
export class IdempotencyClaim {
  private readonly ctx: AppContext;
  private readonly accountId: string;
  private readonly request: IdempotentRequest;
  private readonly token: string;
  private settled = false;

  constructor(ctx: AppContext, accountId: string, request: IdempotentRequest, token: string) {
    this.ctx = ctx;
    this.accountId = accountId;
    this.request = request;
    this.token = token;
  }

  async record(status: number, body: unknown): Promise<void> {
    const fingerprint = await this.request.fingerprint();
    const response: StoredResponse = { status, headers: { "content-type": "application/json" }, body };
    await recordIdempotentResponse(this.ctx.db, {
      accountId: this.accountId,
      key: this.request.key,
      token: this.token,
      fingerprint,
      response,
    });
    this.settled = true;
  }

  async release(): Promise<void> {
    if (this.settled) return;
    this.settled = true;
    await releaseIdempotencyKey(this.ctx.db, {
      accountId: this.accountId,
      key: this.request.key,
      token: this.token,
    });
  }
}

/**
 * Claims the request's key. Returns the claim to hold (a new request), or the stored reply of the
 * earlier request (a retry), whose body is checked against `schema`; throws 409 while the earlier
 * request runs and 422 when the key was used for another request.
 */
export async function claimIdempotency<T>(
  ctx: AppContext,
  accountId: string,
  request: IdempotentRequest,
  schema: z.ZodType<T>,
): Promise<{ claim: IdempotencyClaim } | { reply: SubmissionReply<T> }> {
  const now = ctx.now();
  // A claim that never recorded a response within the request timeout belongs to a dead request.
  const staleBefore = new Date(now.getTime() - ctx.config.requestTimeoutSeconds * 1000 - 60_000);
  const token = randomUUID();
  const held = await claimIdempotencyKey(ctx.db, {
    accountId,
    key: request.key,
    token,
    now,
    expiresAt: new Date(now.getTime() + IDEMPOTENCY_TTL_MS),
    staleBefore,
  });
  if (held.state === "claimed") {
    await deleteExpiredIdempotencyKeys(ctx.db, accountId, now);
    return { claim: new IdempotencyClaim(ctx, accountId, request, held.token) };
  }
  if (held.state === "in_progress") throw withRetryAfter(new IdempotencyKeyInUse(), 1);
  if ((await request.fingerprint()) !== held.fingerprint) throw idempotencyMismatch();
  return { reply: { status: held.response.status, body: schema.parse(held.response.body), replayed: true } };
}
