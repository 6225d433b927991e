/**
 * POST /v1/predictions (service-spec §4.1) as a pipeline of named steps, in the contract's
 * check order, stopping at the first violation: claim the Idempotency-Key (a retry of a stored
 * request is answered here, before any limit or upload) → reserve limits ((a) in-flight, (b) quota,
 * (c) rate limit) → receive and validate ((d) the form and the datasets) → store ((e)) →
 * record and enqueue ((f)) → record the response under the key. The limits come before the body is read, so a refused request
 * costs no upload; nothing is stored before (e) and nothing is enqueued before (f). What the
 * steps take is kept in one SubmissionHolds, released in one place whatever ends the request.
 */
import { randomBytes } from "node:crypto";
import { writeFile } from "node:fs/promises";
import { join } from "node:path";
import type { FastifyBaseLogger } from "fastify";
import { z } from "zod";
import { PredictionJobSpec, type PredictionInputs } from "@causeway/contract";
import type { AppContext } from "../context.ts";
import type { Account } from "../db/accounts.ts";
import { settleQuotaCharge } from "../db/accounts.ts";
import { insertPrediction } from "../db/jobs.ts";
import {
  InflightLimit,
  QuotaExceeded,
  RateLimited,
  ServiceUnavailable,
  invalid,
  withRetryAfter,
} from "../errors.ts";
import { limitKeys, LimitStoreUnavailable } from "../limits/limit-store.ts";
import { recordSubmission, recordUpload } from "../observability/metrics.ts";
import type { JobTrace } from "../observability/request-tracing.ts";
import { asUploadRejected } from "../runner-pieces.ts";
import { enqueueJob } from "./enqueue.ts";
import { checkCallbackUrl, subscribeWebhook } from "../webhooks/callback-url.ts";
import { claimIdempotency, type IdempotentRequest, type SubmissionReply } from "./idempotency.ts";
import { SubmissionHolds } from "./submission-holds.ts";
import { planSubmission, type Plan, type ReceivedUpload } from "./submission-plan.ts";

/** Observations allowed per control or perturbed file (service-spec §8). */
export const SPLIT_MAX_OBS = 1000;

/** What a submission needs from its request. */
export interface SubmissionInput {
  account: Account;
  /** Reads the request body: files into `dir`, text fields returned. Called only once the limits pass. */
  receive: (dir: string) => Promise<ReceivedUpload>;
  /** Aborted when the client goes away: the pipeline stops at its next step and releases everything. */
  signal: AbortSignal;
  trace: JobTrace;
  log: FastifyBaseLogger;
  /** The request's Idempotency-Key, when it sent one. */
  idempotency?: IdempotentRequest | null;
}

export const SubmissionAccepted = z.object({
  prediction_id: z.string(),
  status: z.literal("pending"),
  estimated_completion: z.null(),
  n_degs: z.number().int().optional(),
  n_degs_recognised: z.number().int().optional(),
});
export type SubmissionAccepted = z.infer<typeof SubmissionAccepted>;

/** Thrown when the client disconnected mid-request: nothing to answer, everything to release. */
class ClientGone extends Error {}

function stopIfGone(signal: AbortSignal): void {
  if (signal.aborted) throw new ClientGone();
}

/** Runs the submission; null when the client went away before it was accepted. */
export async function submitPrediction(
  ctx: AppContext,
  input: SubmissionInput,
): Promise<SubmissionReply<SubmissionAccepted> | null> {
  const predictionId = ctx.newId();
  const holds = new SubmissionHolds(ctx, input.account.id, predictionId, input.log);
  let accepted: SubmissionReply<SubmissionAccepted> | null = null;
  try {
    const replay = await claimKey(ctx, input, holds);
    if (replay) return replay;
    input.trace.bindJob("prediction", predictionId);
    const body = await runSteps(ctx, input, holds, predictionId);
    // The job exists whatever happens now: a response that could not be recorded is logged, not failed.
    await holds
      .recordResponse(202, body)
      .catch((err: unknown) => input.log.error({ err }, "recording the idempotent response failed"));
    accepted = { status: 202, body, replayed: false };
  } catch (err) {
    if (err instanceof LimitStoreUnavailable) throw new ServiceUnavailable();
    if (!(err instanceof ClientGone)) throw err;
  } finally {
    await holds.release();
  }
  if (!accepted) input.log.info("client went away during submission; reservations released");
  return accepted;
}

async function runSteps(
  ctx: AppContext,
  input: SubmissionInput,
  holds: SubmissionHolds,
  predictionId: string,
): Promise<SubmissionAccepted> {
  await reserveLimits(ctx, input, holds);
  const received = await receiveAndValidate(ctx, input, holds);
  const stored = await storeInputs(ctx, input, holds, received);
  stopIfGone(input.signal);
  const spec = await recordPrediction(ctx, input, holds, predictionId, received, stored);
  await enqueueJob(ctx, spec, input.trace, input.log);
  recordSubmission(received.plan.jobType, input.account.tier);
  return {
    prediction_id: predictionId,
    status: "pending",
    estimated_completion: null,
    ...(received.plan.degsRecognised ?? {}),
  };
}

/** Claims the Idempotency-Key; the stored reply when the request is a retry of an accepted one. */
async function claimKey(
  ctx: AppContext,
  input: SubmissionInput,
  holds: SubmissionHolds,
): Promise<SubmissionReply<SubmissionAccepted> | null> {
  if (!input.idempotency) return null;
  const claimed = await claimIdempotency(ctx, input.account.id, input.idempotency, SubmissionAccepted);
  if ("reply" in claimed) return claimed.reply;
  holds.holdClaim(claimed.claim);
  return null;
}

/** (a) in-flight, (b) quota, (c) rate limit. */
async function reserveLimits(ctx: AppContext, input: SubmissionInput, holds: SubmissionHolds): Promise<void> {
  const nowMs = ctx.now().getTime();
  const { limits } = ctx.config;
  // (a) in-flight: fails closed when the counter store is down (503), never over the limit.
  const slot = await holds.reserveInflight(limits.inflightLimit, ctx.jobs.reservationTtlMs, nowMs);
  if (!slot) throw new InflightLimit();
  // (b) lifetime quota, atomically in PostgreSQL.
  if (!(await holds.consumeQuota(limits.defaultQuota))) throw new QuotaExceeded();
  // (c) per-key rate limit: fails open when the counter store is down.
  const hit = await ctx.limits
    .hit(limitKeys.rate(input.account.apiKeyId), limits.rateLimit, limits.rateWindowSeconds * 1000, nowMs)
    .catch((err: unknown) => {
      if (!(err instanceof LimitStoreUnavailable)) throw err;
      input.log.warn({ err }, "rate-limit store unavailable; failing open");
      return { allowed: true, retryAfterSeconds: 0 };
    });
  if (!hit.allowed) throw withRetryAfter(new RateLimited(), hit.retryAfterSeconds);
}

interface Received {
  /** The temp directory holding the upload. */
  dir: string;
  upload: ReceivedUpload;
  plan: Plan;
  /** The checked completion webhook URL, if one was given. */
  callbackUrl: string | null;
}

interface Stored {
  inputPrefix: string;
  inputs: PredictionInputs;
}

/** (d) the body, the form and the datasets. */
async function receiveAndValidate(
  ctx: AppContext,
  input: SubmissionInput,
  holds: SubmissionHolds,
): Promise<Received> {
  input.trace.startPhase("prediction.validate");
  // A runner gets ready while the upload arrives: its start overlaps the upload and its checks.
  ctx.dispatcher.prewarm?.();
  ctx.runner.prepareUploadValidator();
  const dir = await holds.tempDir();
  const upload = await input.receive(dir);
  recordUpload(Object.values(upload.files));
  stopIfGone(input.signal);
  const plan = await planSubmission(ctx, input.account, upload);
  const callbackUrl = await checkCallbackUrl(ctx, input.account.id, upload.fields.callback_url);
  for (const [field, path] of plan.validate) {
    try {
      await ctx.runner.validateUpload(path, { maxObs: field === "dataset" ? null : SPLIT_MAX_OBS });
    } catch (err) {
      const rejected = asUploadRejected(err);
      if (!rejected) throw err;
      throw invalid(["body", field], rejected.message, rejected.code);
    }
    stopIfGone(input.signal);
  }
  return { dir, upload, plan, callbackUrl };
}

/** (e) the inputs under opaque keys; any storage fault is a 503. */
async function storeInputs(
  ctx: AppContext,
  input: SubmissionInput,
  holds: SubmissionHolds,
  { dir, upload: { files }, plan }: Received,
): Promise<Stored> {
  input.trace.startPhase("prediction.store");
  const prefix = holds.storeUnder(`uploads/${randomBytes(16).toString("hex")}`);
  try {
    if (plan.shape === "merged") {
      const inputs: PredictionInputs = { shape: "merged", dataset_key: `${prefix}/dataset.h5ad` };
      await ctx.store.putFile(inputs.dataset_key, files.dataset!.path, "application/x-hdf5");
      return { inputPrefix: prefix, inputs };
    }
    const inputs: PredictionInputs = {
      shape: "split",
      control_key: `${prefix}/control.h5ad`,
      perturbed_key: `${prefix}/perturbed.h5ad`,
      degs_key: `${prefix}/degs.json`,
    };
    const degsPath = join(dir, "degs.json");
    await writeFile(degsPath, JSON.stringify(plan.degs));
    await ctx.store.putFile(inputs.control_key, files.dataset_control!.path, "application/x-hdf5");
    await ctx.store.putFile(inputs.perturbed_key, files.dataset_pert!.path, "application/x-hdf5");
    await ctx.store.putFile(inputs.degs_key, degsPath, "application/json");
    return { inputPrefix: prefix, inputs };
  } catch (err) {
    input.log.warn({ err }, "storing inputs failed");
    throw new ServiceUnavailable();
  }
}

/** (f), first half: the job spec and the prediction's row, which takes over the holds. */
async function recordPrediction(
  ctx: AppContext,
  input: SubmissionInput,
  holds: SubmissionHolds,
  predictionId: string,
  { plan, callbackUrl }: Received,
  { inputPrefix, inputs }: Stored,
): Promise<PredictionJobSpec> {
  input.trace.startPhase("prediction.enqueue");
  const spec = PredictionJobSpec.parse({
    kind: "prediction",
    job_id: predictionId,
    account_id: input.account.id,
    job_type: plan.jobType,
    model_version: plan.modelVersion,
    target: plan.target,
    inputs,
    params: plan.params,
    dataset: plan.dataset,
    // Opaque: no account, job id or structure visible in a presigned URL.
    output_prefix: `results/${randomBytes(16).toString("hex")}`,
  });
  // One transaction: a prediction row that cannot be written leaves no webhook row behind, and
  // the row takes over the quota charge.
  await ctx.db.tx(async (tx) => {
    if (callbackUrl)
      await subscribeWebhook(tx, {
        jobId: predictionId,
        kind: "prediction",
        accountId: input.account.id,
        url: callbackUrl,
        now: ctx.now(),
      });
    await insertPrediction(tx, {
      id: predictionId,
      accountId: input.account.id,
      jobType: plan.jobType,
      target: plan.target,
      label: plan.label,
      modelVersion: plan.modelVersion,
      spec,
      inputPrefix,
      now: ctx.now(),
    });
    await settleQuotaCharge(tx, predictionId);
  });
  holds.handToRow();
  return spec;
}
