/**
 * A standalone causal analysis of a completed prediction (service-spec §4.9, model.md §10.8):
 * it reuses the prediction's mapped DEGs and fold changes and always its model version.
 */
import { z } from "zod";
import { ARTIFACTS, JobFailure, type CausalAnalysisJobSpec } from "@causeway/contract";
import { numberCell, parseTsvRecords } from "../artifacts/tsv.ts";
import type { Model } from "../model/index.ts";
import type { ObjectStore } from "../storage/index.ts";
import type { ArtifactWriter } from "./artifact-writer.ts";
import { runCausalStep, type CausalStepInput } from "./causal-step.ts";
import type { JobSuccess } from "./prediction-job.ts";
import type { Reporter } from "./reporter.ts";
import type { RunMetadata } from "./run-metadata.ts";

export interface CausalRun {
  spec: CausalAnalysisJobSpec;
  model: Model;
  store: ObjectStore;
  out: ArtifactWriter;
  reporter: Reporter;
  metadata: RunMetadata;
}

export async function runCausalAnalysisJob(run: CausalRun): Promise<JobSuccess> {
  const { spec } = run;
  const prefix = spec.params.prefix ?? "";
  const mappedDegs = z
    .array(z.string())
    .parse(JSON.parse((await readArtifact(run, prefix + ARTIFACTS.mappedDegs)).toString("utf8")));
  const foldChanges = new Map<string, number | null>();
  for (const row of parseTsvRecords(
    (await readArtifact(run, prefix + ARTIFACTS.degsTable)).toString("utf8"),
  )) {
    if (row.gene) foldChanges.set(row.gene, numberCell(row.log2FC));
  }
  await run.reporter.step("inputs_downloaded");
  await run.reporter.step("model_loaded");

  // Artifacts of a standalone analysis are its own: no result-set prefix on their names.
  const step: CausalStepInput = {
    model: run.model,
    target: spec.target,
    mappedDegs,
    foldChanges,
    params: spec.params,
    prefix: "",
  };
  await runCausalStep(run, step);
  await run.metadata.write(run.out);
  await run.reporter.step("results_uploaded");
  return { result_files: run.out.files(), dataset_summary: null, result_sets: [""] };
}

async function readArtifact(run: CausalRun, name: string): Promise<Buffer> {
  const key = run.spec.prediction_artifacts[name];
  if (!key) {
    throw new JobFailure(
      "internal_error",
      "The prediction's stored results needed for this analysis are missing.",
      `artifact ${name} not listed in prediction_artifacts`,
    );
  }
  return run.store.get(key);
}
