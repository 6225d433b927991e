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
  FAILURE_CODES,
  JobFailure,
  attemptPrefix,
  RUNNER_EXIT,
  type JobSpec,
  type PredictionJobSpec,
} from "@causeway/contract";
import { loadModel, loadOrthologues, type Model } from "../model/index.ts";
import type { ObjectStore } from "../storage/index.ts";
import { ArtifactWriter } from "./artifact-writer.ts";
import type { LocalInputs } from "./prediction-job.ts";
import type { FinalReport, Reporter } from "./reporter.ts";
import { RunMetadata } from "./run-metadata.ts";

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
    job_id: spec.job_id,
    kind: spec.kind,
    model_version: spec.model_version,
    parameters: spec.params,
    attempt: ctx.attempt,
  });
  const workDir = await mkdtemp(join(tmpdir(), "causeway-job-"));
  let report: FinalReport;
  try {
    const model = await (ctx.loadModel ?? ((v) => loadModel(ctx.store, v, { cacheDir: ctx.cacheDir })))(
      spec.model_version,
    );
    if (spec.kind === "prediction") {
      const inputs = await fetchInputs(spec, ctx.store, workDir);
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
  await ctx.reporter.finish(report);
  return { report, exitCode: report.status === "completed" ? RUNNER_EXIT.ok : RUNNER_EXIT.jobFailed };
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
    error_message: failure.message,
    error_detail: failure.detail ?? null,
    billable: FAILURE_CODES[failure.code].billable,
    result_files: out.files(),
  };
}
