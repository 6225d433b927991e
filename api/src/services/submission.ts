/**
 * POST /v1/predictions (service-spec §4.1). Checks run in the contract's order and stop at
 * the first violation: (a) in-flight, (b) quota, (c) rate limit, (d) form and dataset
 * validation, (e) storage, (f) enqueue. The limits are checked before the body is read, so a
 * refused request costs no upload. A reservation taken in (a) or (b) is released on every
 * later failure, including a client that went away; nothing is stored before (e) and nothing
 * is enqueued before (f).
 */
import { randomBytes } from "node:crypto";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { basename, join } from "node:path";
import type { FastifyReply, FastifyRequest } from "fastify";
import {
  PredictionJobSpec,
  PredictionParams,
  parseEntityId,
  type PredictionInputs,
} from "@causeway/contract";
import type { AppContext } from "../context.ts";
import { consumeQuota, refundQuota, type Account } from "../db/accounts.ts";
import { insertPrediction } from "../db/jobs.ts";
import { getDefaultModel, getModel } from "../db/models.ts";
import {
  InflightLimit,
  JobTypeNotAllowed,
  QuotaExceeded,
  RateLimited,
  RequestValidationError,
  ServiceUnavailable,
  invalid,
  withRetryAfter,
  zodItems,
  type ValidationItem,
} from "../errors.ts";
import { limitKeys, LimitStoreUnavailable } from "../limits/limit-store.ts";
import { asUploadRejected } from "../runner-pieces.ts";
import { DegList, PredictionForm } from "../schemas/predictions.ts";
import { receiveUpload, type ReceivedUpload } from "./upload.ts";
import { recordSubmission, recordUpload } from "../observability/metrics.ts";
import { bindJob, jobTraceContext, startPhase } from "../observability/request-tracing.ts";

/** Observations allowed per control or perturbed file (service-spec §8). */
export const SPLIT_MAX_OBS = 1000;

/** Thrown when the client disconnected mid-request: nothing to answer, everything to release. */
class ClientGone extends Error {}

export async function submitPrediction(ctx: AppContext, request: FastifyRequest, reply: FastifyReply) {
  const account = request.account!;
  const predictionId = ctx.newId();
  bindJob(request, "prediction", predictionId);
  const held = { inflight: false, quota: false };
  let gone = false;
  reply.raw.once("close", () => {
    if (!reply.raw.writableFinished) gone = true;
  });
  const checkGone = () => {
    if (gone) throw new ClientGone();
  };
  let tempDir: string | null = null;
  let inputPrefix: string | null = null;
  let committed = false;
  try {
    const nowMs = ctx.now().getTime();
    const { limits } = ctx.config;
    // (a) in-flight: fails closed when the counter store is down (503), never over the limit.
    held.inflight = await ctx.limits.reserve(
      limitKeys.inflight(account.id),
      predictionId,
      limits.inflightLimit,
      ctx.jobs.reservationTtlMs,
      nowMs,
    );
    if (!held.inflight) throw new InflightLimit();
    // (b) lifetime quota, atomically in PostgreSQL.
    held.quota = await consumeQuota(ctx.db, account.id, limits.defaultQuota);
    if (!held.quota) throw new QuotaExceeded();
    // (c) per-key rate limit: fails open when the counter store is down.
    const hit = await ctx.limits
      .hit(limitKeys.rate(account.apiKeyId), limits.rateLimit, limits.rateWindowSeconds * 1000, nowMs)
      .catch((err: unknown) => {
        if (!(err instanceof LimitStoreUnavailable)) throw err;
        request.log.warn({ err }, "rate-limit store unavailable; failing open");
        return { allowed: true, retryAfterSeconds: 0 };
      });
    if (!hit.allowed) throw withRetryAfter(new RateLimited(), hit.retryAfterSeconds);

    // (d) the form and the datasets.
    startPhase(request, "prediction.validate");
    tempDir = await mkdtemp(join(tmpdir(), "causeway-upload-"));
    const upload = await receiveUpload(request, tempDir, ctx.config.uploads);
    recordUpload(Object.values(upload.files));
    checkGone();
    const plan = await planSubmission(ctx, account, upload);
    for (const [field, file] of plan.validate) {
      try {
        await ctx.runner.validateUpload(file, { maxObs: field === "dataset" ? null : SPLIT_MAX_OBS });
      } catch (err) {
        const rejected = asUploadRejected(err);
        if (!rejected) throw err;
        throw invalid(["body", field], rejected.message, rejected.code);
      }
      checkGone();
    }

    // (e) storage under opaque keys.
    startPhase(request, "prediction.store");
    inputPrefix = `uploads/${randomBytes(16).toString("hex")}`;
    let inputs: PredictionInputs;
    try {
      if (plan.shape === "merged") {
        inputs = { shape: "merged", dataset_key: `${inputPrefix}/dataset.h5ad` };
        await ctx.store.putFile(inputs.dataset_key, upload.files.dataset!.path, "application/x-hdf5");
      } else {
        inputs = {
          shape: "split",
          control_key: `${inputPrefix}/control.h5ad`,
          perturbed_key: `${inputPrefix}/perturbed.h5ad`,
          degs_key: `${inputPrefix}/degs.json`,
        };
        const degsPath = join(tempDir, "degs.json");
        await writeFile(degsPath, JSON.stringify(plan.degs));
        await ctx.store.putFile(inputs.control_key, upload.files.dataset_control!.path, "application/x-hdf5");
        await ctx.store.putFile(inputs.perturbed_key, upload.files.dataset_pert!.path, "application/x-hdf5");
        await ctx.store.putFile(inputs.degs_key, degsPath, "application/json");
      }
    } catch (err) {
      request.log.warn({ err }, "storing inputs failed");
      throw new ServiceUnavailable();
    }
    checkGone();

    // (f) record and enqueue.
    startPhase(request, "prediction.enqueue");
    const spec = PredictionJobSpec.parse({
      kind: "prediction",
      job_id: predictionId,
      account_id: account.id,
      job_type: plan.jobType,
      model_version: plan.modelVersion,
      target: plan.target,
      inputs,
      params: plan.params,
      // Opaque: no account, job id or structure visible in a presigned URL.
      output_prefix: `results/${randomBytes(16).toString("hex")}`,
    });
    const now = ctx.now();
    await insertPrediction(ctx.db, {
      id: predictionId,
      accountId: account.id,
      jobType: plan.jobType,
      target: plan.target,
      label: plan.label,
      modelVersion: plan.modelVersion,
      spec,
      inputPrefix,
      now,
    });
    // From here the row owns the reservations: failing the job releases them exactly once.
    committed = true;
    try {
      // The runner continues this request's trace from the enqueue phase.
      await ctx.dispatcher.dispatch(spec, jobTraceContext(request));
    } catch (err) {
      request.log.error({ err }, "dispatch failed");
      await ctx.jobs.fail(
        "prediction",
        predictionId,
        "internal_error",
        "The job could not be queued. Please submit it again.",
      );
      throw new ServiceUnavailable();
    }
    recordSubmission(plan.jobType, account.tier);
    return reply
      .code(202)
      .send({ prediction_id: predictionId, status: "pending", estimated_completion: null });
  } catch (err) {
    if (!committed) {
      await releaseHolds(ctx, account, predictionId, held, request);
      if (inputPrefix) await ctx.store.deletePrefix(inputPrefix).catch(() => {});
    }
    if (err instanceof ClientGone) {
      request.log.info("client went away during submission; reservations released");
      return reply;
    }
    if (err instanceof LimitStoreUnavailable) throw new ServiceUnavailable();
    throw err;
  } finally {
    if (tempDir) await rm(tempDir, { recursive: true, force: true });
  }
}

async function releaseHolds(
  ctx: AppContext,
  account: Account,
  predictionId: string,
  held: { inflight: boolean; quota: boolean },
  request: FastifyRequest,
): Promise<void> {
  if (held.quota)
    await refundQuota(ctx.db, account.id).catch((err: unknown) =>
      request.log.error({ err }, "quota refund failed"),
    );
  if (held.inflight) {
    await ctx.limits
      .release(limitKeys.inflight(account.id), predictionId)
      .catch((err: unknown) => request.log.error({ err }, "in-flight release failed"));
  }
}

interface Plan {
  shape: "merged" | "split";
  jobType: "target_id" | "target_validation";
  target: string | null;
  degs: string[] | null;
  params: PredictionParams;
  modelVersion: string;
  label: string;
  validate: [string, string][];
}

/** Validates the form (rules 1 and 2, bounds, degs, model version) into a submission plan. */
async function planSubmission(ctx: AppContext, account: Account, upload: ReceivedUpload): Promise<Plan> {
  const parsed = PredictionForm.safeParse(upload.fields);
  if (!parsed.success) throw new RequestValidationError(zodItems(parsed.error.issues, ["body"]));
  const form = parsed.data;
  const items: ValidationItem[] = [];
  const { dataset, dataset_control: control, dataset_pert: pert } = upload.files;

  // Rule 2 is account policy, answered before shape problems: 403 job_type_not_allowed.
  if (account.tier === "external" && form.job_type !== "target_validation") throw new JobTypeNotAllowed();

  let shape: Plan["shape"];
  if (dataset && (control || pert)) {
    items.push({
      loc: ["body", "dataset"],
      msg: "give either dataset or dataset_control + dataset_pert, not both",
      type: "value_error",
    });
    shape = "merged";
  } else if (dataset) {
    shape = "merged";
    if (form.degs !== undefined)
      items.push({
        loc: ["body", "degs"],
        msg: "degs belongs to the split input shape",
        type: "value_error",
      });
  } else {
    shape = "split";
    if (!control && !pert) items.push({ loc: ["body", "dataset"], msg: "Field required", type: "missing" });
    else {
      if (!control) items.push({ loc: ["body", "dataset_control"], msg: "Field required", type: "missing" });
      if (!pert) items.push({ loc: ["body", "dataset_pert"], msg: "Field required", type: "missing" });
    }
  }
  let degs: string[] | null = null;
  if (shape === "split" && (control || pert)) {
    if (form.degs === undefined)
      items.push({ loc: ["body", "degs"], msg: "Field required", type: "missing" });
    else {
      let json: unknown;
      try {
        json = JSON.parse(form.degs);
      } catch {
        json = undefined;
        items.push({
          loc: ["body", "degs"],
          msg: "degs must be a JSON array of gene symbols",
          type: "json_invalid",
        });
      }
      if (json !== undefined) {
        const list = DegList.safeParse(json);
        if (list.success) degs = list.data;
        else items.push(...zodItems(list.error.issues, ["body", "degs"]));
      }
    }
  }
  // Rule 1.
  if (form.job_type === "target_validation") {
    if (form.target === null)
      items.push({
        loc: ["body", "target"],
        msg: "target is required for target_validation",
        type: "missing",
      });
    if (shape !== "split") {
      items.push({
        loc: ["body", "dataset"],
        msg: "target_validation requires the split inputs (dataset_control, dataset_pert, degs)",
        type: "value_error",
      });
    }
  }
  if (form.target !== null && parseEntityId(form.target)?.type !== "PROTEIN") {
    items.push({
      loc: ["body", "target"],
      msg: "target must be a protein entity id such as STAT1|PROTEIN",
      type: "value_error",
    });
  }
  if (items.length > 0) throw new RequestValidationError(items);

  const model =
    form.model_version === null ? await getDefaultModel(ctx.db) : await getModel(ctx.db, form.model_version);
  if (!model) {
    if (form.model_version !== null)
      throw invalid(
        ["body", "model_version"],
        `unknown model version ${form.model_version}`,
        "unknown_model_version",
      );
    throw invalid(
      ["body", "model_version"],
      "no default model version is registered",
      "unknown_model_version",
    );
  }
  const target = form.target === null ? null : `${parseEntityId(form.target)!.symbol}|PROTEIN`;
  const params = PredictionParams.parse({
    deg_significance_fold: form.deg_significance_fold,
    min_mean_expression: form.min_mean_expression,
    n_randomizations: form.n_randomizations,
    top_n_causal_degs: form.top_n_causal_degs,
    min_path_fraction: form.min_path_fraction,
    min_path_probability: form.min_path_probability,
    max_path_length: form.max_path_length,
    min_degs_fold_uniform: form.min_degs_fold_uniform,
    prefix: form.prefix,
  });
  const firstFile = dataset ?? control!;
  const stem =
    basename(firstFile.filename || "dataset")
      .replace(/\.h5ad$/i, "")
      .slice(0, 80) || "dataset";
  const label =
    form.label ??
    `${stem} ${form.job_type}${target ? ` ${target}` : ""} ${ctx.now().toISOString().slice(0, 16).replace("T", " ")}`;
  const validate: [string, string][] =
    shape === "merged"
      ? [["dataset", dataset!.path]]
      : [
          ["dataset_control", control!.path],
          ["dataset_pert", pert!.path],
        ];
  return {
    shape,
    jobType: form.job_type,
    target,
    degs,
    params,
    modelVersion: model.version,
    label,
    validate,
  };
}
