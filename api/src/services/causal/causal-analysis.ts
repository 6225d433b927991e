/**
 * POST /v1/causal-analysis (service-spec §4.9, model.md §10.8): a standalone causal analysis
 * of one of the caller's completed predictions, for one target of one of its result sets. It is
 * accounted work, not billable: it takes one of the account's causal in-flight slots (released
 * when the job ends) and one unit of the API key's causal rate limit, both before anything is
 * read; it is recorded, then enqueued. Tier rule: an external account gets a 404 for a
 * target_validation prediction, whose causal artifacts its tier does not show.
 */
import { randomBytes } from "node:crypto";
import type { FastifyBaseLogger } from "fastify";
import { z } from "zod";
import { ARTIFACTS, CausalAnalysisJobSpec } from "@causeway/contract";
import type { AppContext } from "../../context.ts";
import type { Account } from "../../db/accounts.ts";
import {
  getCausalAnalysis,
  getPrediction,
  insertCausalAnalysis,
  type CausalAnalysisRow,
  type PredictionRow,
} from "../../db/jobs.ts";
import {
  CausalInflightLimit,
  CausalRateLimited,
  NotFound,
  ServiceUnavailable,
  invalid,
  withRetryAfter,
} from "../../errors.ts";
import { limitKeys, LimitStoreUnavailable } from "../../limits/limit-store.ts";
import { recordSubmission } from "../../observability/metrics.ts";
import type { JobTrace } from "../../observability/request-tracing.ts";
import type { CreateCausalAnalysisRequest } from "../../schemas/causal.ts";
import { findTsvRow, readArtifact, targetIds } from "../status/artifacts.ts";
import { checkCallbackUrl, subscribeWebhook } from "../../webhooks/callback-url.ts";
import { enqueueJob } from "../submission/enqueue.ts";
import { claimIdempotency, type IdempotentRequest, type SubmissionReply } from "../submission/idempotency.ts";

export interface CausalAnalysisInput {
  account: Account;
  request: z.output<typeof CreateCausalAnalysisRequest>;
  trace: JobTrace;
  log: FastifyBaseLogger;
  /** The request's Idempotency-Key, when it sent one. */
  idempotency?: IdempotentRequest | null;
}

export const CausalAnalysisAccepted = z.object({
  causal_analysis_id: z.string(),
  status: z.literal("pending"),
  estimated_completion: z.null(),
});
export type CausalAnalysisAccepted = z.infer<typeof CausalAnalysisAccepted>;

/**
 * Claims the Idempotency-Key (a retry of an accepted request gets its stored reply), creates
 * the analysis, and records the reply under the key; any failure gives the key back.
 */
export async function createCausalAnalysis(
  ctx: AppContext,
  input: CausalAnalysisInput,
): Promise<SubmissionReply<CausalAnalysisAccepted>> {
  if (!input.idempotency) return { status: 202, body: await createAnalysis(ctx, input), replayed: false };
  const claimed = await claimIdempotency(ctx, input.account.id, input.idempotency, CausalAnalysisAccepted);
  if ("reply" in claimed) return claimed.reply;
  try {
    const body = await createAnalysis(ctx, input);
    await claimed.claim
      .record(202, body)
      .catch((err: unknown) => input.log.error({ err }, "recording the idempotent response failed"));
    return { status: 202, body, replayed: false };
  } finally {
    await claimed.claim
      .release()
      .catch((err: unknown) => input.log.error({ err }, "idempotency key release failed"));
  }
}

async function createAnalysis(ctx: AppContext, input: CausalAnalysisInput): Promise<CausalAnalysisAccepted> {
  const id = ctx.newId();
  const slotKey = limitKeys.causalInflight(input.account.id);
  let recorded = false;
  try {
    await reserveLimits(ctx, input, id);
    const accepted = await recordAnalysis(ctx, input, id, () => {
      recorded = true;
    });
    return accepted;
  } catch (err) {
    if (err instanceof LimitStoreUnavailable) throw new ServiceUnavailable();
    throw err;
  } finally {
    // Once the row exists the job owns the slot (released when it ends); before, nothing does.
    if (!recorded)
      await ctx.limits
        .release(slotKey, id)
        .catch((err: unknown) => input.log.error({ err }, "in-flight release failed"));
  }
}

/** The account's causal in-flight slot (fails closed), then the key's causal rate limit (fails open). */
async function reserveLimits(ctx: AppContext, input: CausalAnalysisInput, id: string): Promise<void> {
  const { limits } = ctx.config;
  const nowMs = ctx.now().getTime();
  const slot = await ctx.limits.reserve(
    limitKeys.causalInflight(input.account.id),
    id,
    limits.causalInflightLimit,
    ctx.jobs.reservationTtlMs,
    nowMs,
  );
  if (!slot) throw new CausalInflightLimit();
  const hit = await ctx.limits
    .hit(
      limitKeys.causalRate(input.account.apiKeyId),
      limits.causalRateLimit,
      limits.causalRateWindowSeconds * 1000,
      nowMs,
    )
    .catch((err: unknown) => {
      if (!(err instanceof LimitStoreUnavailable)) throw err;
      input.log.warn({ err }, "rate-limit store unavailable; failing open");
      return { allowed: true, retryAfterSeconds: 0 };
    });
  if (!hit.allowed) throw withRetryAfter(new CausalRateLimited(), hit.retryAfterSeconds);
}

async function recordAnalysis(
  ctx: AppContext,
  { account, request, trace, log }: CausalAnalysisInput,
  id: string,
  onRecorded: () => void,
): Promise<CausalAnalysisAccepted> {
  const p = await getPrediction(ctx.db, account.id, request.prediction_id);
  // Missing, foreign and unfinished predictions answer alike; so does a target_validation
  // prediction of an external account (its tier shows no causal artifacts of such jobs).
  if (!p || p.status !== "completed") throw new NotFound();
  if (analysesHiddenFrom(account, p)) throw new NotFound();
  const prefix = chooseResultSet(p, request.prefix);
  await checkTarget(ctx, p, prefix, request.target);
  const callbackUrl = await checkCallbackUrl(ctx, account.id, request.callback_url);
  trace.bindJob("causal_analysis", id);
  const spec = CausalAnalysisJobSpec.parse({
    kind: "causal_analysis",
    job_id: id,
    account_id: account.id,
    prediction_id: p.id,
    model_version: p.model_version,
    target: request.target,
    prediction_artifacts: resultSetArtifacts(p, prefix),
    params: {
      top_n_causal_degs: request.top_n_causal_degs,
      min_path_fraction: request.min_path_fraction,
      min_path_probability: request.min_path_probability,
      max_path_length: request.max_path_length,
      min_degs_fold_uniform: request.min_degs_fold_uniform,
      prefix: prefix === "" ? null : prefix,
    },
    metadata: request.metadata,
    output_prefix: `results/${randomBytes(16).toString("hex")}`,
  });
  // One transaction: a job row that cannot be written leaves no webhook row behind.
  await ctx.db.tx(async (tx) => {
    if (callbackUrl)
      await subscribeWebhook(tx, {
        jobId: id,
        kind: "causal_analysis",
        accountId: account.id,
        url: callbackUrl,
        now: ctx.now(),
      });
    await insertCausalAnalysis(tx, {
      id,
      accountId: account.id,
      predictionId: p.id,
      target: request.target,
      spec,
      now: ctx.now(),
    });
  });
  onRecorded();
  await enqueueJob(ctx, spec, trace, log);
  recordSubmission("causal_analysis");
  return { causal_analysis_id: id, status: "pending", estimated_completion: null };
}

/**
 * The tier rule of standalone analyses: an external account sees no causal analysis of a
 * target_validation prediction (its tier gets no causal artifacts of such jobs), on any route,
 * including rows made before the rule or before the account's tier changed.
 */
export function analysesHiddenFrom(account: Account, p: Pick<PredictionRow, "job_type">): boolean {
  return account.tier === "external" && p.job_type === "target_validation";
}

/** A causal analysis the caller may see, or null (missing, foreign and tier-hidden alike). */
export async function visibleCausalAnalysis(
  ctx: AppContext,
  account: Account,
  id: string,
): Promise<CausalAnalysisRow | null> {
  const c = await getCausalAnalysis(ctx.db, account.id, id);
  if (!c || account.tier !== "external") return c;
  const p = await getPrediction(ctx.db, account.id, c.prediction_id);
  return !p || analysesHiddenFrom(account, p) ? null : c;
}

/** The result set the analysis reads ("" for a prediction with one unnamed set); 422 when unclear. */
function chooseResultSet(p: PredictionRow, requested: string | null): string {
  const sets = p.result_sets && p.result_sets.length > 0 ? p.result_sets : [""];
  if (requested !== null) {
    if (!sets.includes(requested))
      throw invalid(["body", "prefix"], "no result set has this prefix", "value_error");
    return requested;
  }
  if (sets.length > 1)
    throw invalid(
      ["body", "prefix"],
      `this prediction has several result sets; choose one of: ${sets.join(", ")}`,
      "missing",
    );
  return sets[0]!;
}

/**
 * 422 unless the target is a row of the result set's inference results that the network holds
 * (model v4 also ranks proteins only its evidence layers name: no path leads from them).
 */
async function checkTarget(ctx: AppContext, p: PredictionRow, prefix: string, target: string): Promise<void> {
  const scores = await readArtifact(ctx.store, p.result_files, prefix + ARTIFACTS.targetScores);
  const tsv = scores?.toString("utf8") ?? null;
  const ids = tsv === null ? null : targetIds(tsv);
  if (!ids || !ids.has(target)) {
    // A bare symbol where the protein is meant: say which row it probably names.
    const meant = `${target.trim()}|PROTEIN`;
    const hint = ids?.has(meant) ? `; did you mean ${meant}?` : "";
    throw invalid(
      ["body", "target"],
      `target is not a row of the prediction's inference results${hint}`,
      "value_error",
    );
  }
  const source = findTsvRow(tsv!, target)?.candidate_source;
  if (source !== undefined && source !== "network")
    throw invalid(
      ["body", "target"],
      `target is a candidate through the model's evidence layers (${source}), not the network: it has no causal path to explain`,
      "value_error",
    );
}

/** The prediction's artifacts of one result set, by basename without the prefix (plus the run metadata). */
function resultSetArtifacts(p: PredictionRow, prefix: string): Record<string, string> {
  const artifacts: Record<string, string> = {};
  for (const [name, key] of Object.entries(p.result_files ?? {})) {
    if (prefix === "" || name.startsWith(prefix))
      artifacts[prefix === "" ? name : name.slice(prefix.length)] = key;
    else if (name === ARTIFACTS.runMetadata) artifacts[name] = key;
  }
  return artifacts;
}
