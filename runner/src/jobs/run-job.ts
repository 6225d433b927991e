/**
 * One job from its spec to its final report, the same for a Kubernetes Job and the
 * embedded executor: fetch inputs, load the model, run, report. Every failure becomes
 * exactly one `failed` report with a stable code; unexpected faults are `internal_error`
 * with the technical detail kept for internal accounts only.
 */
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import {
  ARTIFACTS,
  clipText,
  FAILURE_CODES,
  JobFailure,
  MAX_ERROR_DETAIL,
  MAX_ERROR_MESSAGE,
  attemptPrefix,
  mediaTypeOf,
  RUNNER_EXIT,
  type CausalAnalysisJobSpec,
  type JobSpec,
  type PredictionJobSpec,
} from "@causeway/contract";
import { loadModel, loadOrthologues, type Model } from "../model/index.ts";
import type { ObjectStore } from "../storage/index.ts";
import { ArtifactWriter } from "./artifact-writer.ts";
import type { LocalInputs } from "./prediction-job.ts";
import type { FinalReport, Reporter } from "./reporter.ts";
import { RunMetadata } from "./run-metadata.ts";
import { bufferDigest, fileDigest, writeRunCrate, type CrateInput, type RunCrate } from "./ro-crate.ts";

export interface JobContext {
  store: ObjectStore;
  reporter: Reporter;
  attempt: string;
  /** Where a model version's bundle is cached on local disk. */
  cacheDir?: string;
  /** Loads a model version; defaults to the store's `models/<version>/`. */
  loadModel?: (version: string) => Promise<Model>;
}

export interface JobOutcome {
  report: FinalReport;
  exitCode: number;
}

export async function runJob(spec: JobSpec, ctx: JobContext): Promise<JobOutcome> {
  const out = new ArtifactWriter(ctx.store, attemptPrefix(spec.output_prefix, ctx.attempt));
  const metadata = new RunMetadata({
    // The client's free keys of a causal analysis (spec §4.9), under the runner's own: a key of
    // theirs never hides one the runner writes.
    ...(spec.kind === "causal_analysis" ? spec.metadata : {}),
    job_id: spec.job_id,
    kind: spec.kind,
    model_version: spec.model_version,
    parameters: spec.params,
    attempt: ctx.attempt,
  });
  const workDir = await mkdtemp(join(tmpdir(), "causeway-job-"));
  let report: FinalReport;
  // What the provenance record (ro-crate.ts) lists as read, gathered as the job reads it.
  let model: Model | null = null;
  let crateInputs: CrateInput[] = [];
  try {
    model = await (ctx.loadModel ?? ((v) => loadModel(ctx.store, v, { cacheDir: ctx.cacheDir })))(
      spec.model_version,
    );
    if (spec.kind === "prediction") {
      const inputs = await fetchInputs(spec, ctx.store, workDir);
      crateInputs = await predictionInputs(inputs);
      // The input shape and what the submitter said, never object keys (clients read this file).
      metadata.set("inputs", {
        shape: spec.inputs.shape,
        ...(spec.dataset ? { dataset: spec.dataset } : {}),
      });
      const orthologues = await loadOrthologues(ctx.store, model.manifest).catch(() => null);
      await ctx.reporter.step("inputs_downloaded");
      // Each kind loads only its own modules: a causal analysis never reads AnnData or runs DE,
      // so a one-shot runner (a Kubernetes Job) starts faster for it.
      const { runPrediction } = await import("./prediction-job.ts");
      const success = await runPrediction({
        predictionId: spec.job_id,
        jobType: spec.job_type,
        target: spec.target,
        params: spec.params,
        model,
        inputs,
        out,
        reporter: ctx.reporter,
        metadata,
        ...(spec.dataset ? { dataset: spec.dataset } : {}),
        orthologues,
      });
      report = { status: "completed", ...success };
    } else {
      crateInputs = await causalInputs(spec, ctx.store);
      const { runCausalAnalysisJob } = await import("./causal-job.ts");
      const success = await runCausalAnalysisJob({
        spec,
        model,
        store: ctx.store,
        out,
        reporter: ctx.reporter,
        metadata,
      });
      report = { status: "completed", ...success };
    }
  } catch (err) {
    report = await failureReport(err, out, metadata);
  } finally {
    await rm(workDir, { recursive: true, force: true });
  }
  report = await withRunCrate(report, {
    spec,
    out,
    metadata,
    model: model?.manifest ?? null,
    inputs: crateInputs,
    failure: report.status === "failed" ? { code: report.error_code, message: report.error_message } : null,
  });
  await ctx.reporter.finish(report);
  return { report, exitCode: report.status === "completed" ? RUNNER_EXIT.ok : RUNNER_EXIT.jobFailed };
}

/** The report with the provenance record written last and listed with the other files. */
async function withRunCrate(report: FinalReport, crate: RunCrate): Promise<FinalReport> {
  try {
    await writeRunCrate(crate);
  } catch (err) {
    // The record describes the result; it never turns a completed job into a failed one.
    console.error(`ro-crate-metadata.json not written: ${err instanceof Error ? err.message : String(err)}`);
    return report;
  }
  return { ...report, result_files: crate.out.files() };
}

/** The uploaded files as the job read them, with their digests. */
async function predictionInputs(inputs: LocalInputs): Promise<CrateInput[]> {
  const file = async (name: string, path: string, description: string): Promise<CrateInput> => ({
    name,
    ...(await fileDigest(path)),
    encodingFormat: mediaTypeOf(name),
    description,
  });
  // A "contrast" is built in-process (validation runs), never from uploads.
  if (inputs.shape === "contrast") return [];
  if (inputs.shape === "merged")
    return [await file("dataset.h5ad", inputs.datasetPath, "The uploaded dataset (both arms).")];
  return [
    await file("control.h5ad", inputs.controlPath, "The uploaded control arm."),
    await file("perturbed.h5ad", inputs.perturbedPath, "The uploaded perturbed arm."),
    {
      name: "degs.json",
      ...bufferDigest(Buffer.from(inputs.degsJson, "utf8")),
      encodingFormat: "application/json",
      description: "The submitted DEG list, as stored.",
    },
  ];
}

/** The prediction's artifacts a causal analysis reads (causal-job.ts), with their digests. */
async function causalInputs(spec: CausalAnalysisJobSpec, store: ObjectStore): Promise<CrateInput[]> {
  const prefix = spec.params.prefix ?? "";
  const out: CrateInput[] = [];
  for (const name of [ARTIFACTS.mappedDegs, ARTIFACTS.degsTable]) {
    const key = spec.prediction_artifacts[prefix + name];
    if (!key) continue; // the job itself fails on it, with its own message
    out.push({
      name: prefix + name,
      ...bufferDigest(await store.get(key)),
      encodingFormat: mediaTypeOf(name),
      description: `The prediction's ${name}, which this analysis reuses.`,
    });
  }
  return out;
}

async function fetchInputs(spec: PredictionJobSpec, store: ObjectStore, dir: string): Promise<LocalInputs> {
  const i = spec.inputs;
  if (i.shape === "merged") {
    const datasetPath = join(dir, "dataset.h5ad");
    await store.getToFile(i.dataset_key, datasetPath);
    return { shape: "merged", datasetPath };
  }
  const controlPath = join(dir, "control.h5ad");
  const perturbedPath = join(dir, "perturbed.h5ad");
  await store.getToFile(i.control_key, controlPath);
  await store.getToFile(i.perturbed_key, perturbedPath);
  const degsJson = (await store.get(i.degs_key)).toString("utf8");
  return { shape: "split", controlPath, perturbedPath, degsJson };
}

/** The failed report; artifacts stored before the failure are listed, and metadata is kept. */
export async function failureReport(
  err: unknown,
  out: ArtifactWriter,
  metadata: RunMetadata,
): Promise<FinalReport> {
  const failure =
    err instanceof JobFailure
      ? err
      : new JobFailure(
          "internal_error",
          "The job failed because of an internal error. It was not counted against your quota; please retry later.",
          err instanceof Error ? (err.stack ?? err.message) : String(err),
        );
  metadata.set("failure", { code: failure.code, message: failure.message });
  try {
    await metadata.write(out);
  } catch {
    // Storage itself may be what failed; the report still goes out.
  }
  return {
    status: "failed",
    error_code: failure.code,
    error_message: clipText(failure.message, MAX_ERROR_MESSAGE),
    error_detail: failure.detail === undefined ? null : clipText(failure.detail, MAX_ERROR_DETAIL),
    billable: FAILURE_CODES[failure.code].billable,
    result_files: out.files(),
  };
}
