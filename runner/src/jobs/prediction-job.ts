/**
 * A prediction job from local input files to stored artifacts (model.md §3–§11, §13), in
 * the step order of §12.3. Both job types run here: target_id ranks candidates for every
 * result set; target_validation does the same for its single split contrast and then runs
 * the causal analysis of its target.
 */
import {
  ARTIFACTS,
  DEFAULT_DATASET_OPTIONS,
  JobFailure,
  type DatasetOptions,
  parseEntityId,
  proteinId,
  type JobType,
  type PredictionParams,
} from "@causeway/contract";
import { resultSetPrefixes, type CompletedCallback, type DatasetSummary } from "@causeway/contract";
import { prepareMergedDataset, prepareSplitDataset } from "../inputs/index.ts";
import type { Model } from "../model/index.ts";
import { NoOrthologueTable, speciesResolver, type OrthologueTable } from "../symbols/index.ts";
import { collectWarnings } from "./job-warnings.ts";
import { scoringOf, type ScoreTargetsResult, type ScoringVersion } from "../scoring/index.ts";
import type { ArtifactWriter } from "./artifact-writer.ts";
import { runCausalStep, type CausalStepInput } from "./causal-step.ts";
import { scoringInputOf } from "./scoring-input.ts";
import { contrastFromMerged, contrastFromSplit, type Contrast } from "./contrast.ts";
import type { Reporter } from "./reporter.ts";
import type { RunMetadata } from "./run-metadata.ts";
import { writeDegArtifacts, writePseudoBulkArtifacts, writeScoreArtifacts } from "./scoring-artifacts.ts";

/** The n_obs limit of the contract (service-spec §8), per split file and per merged arm. */
export const MAX_OBSERVATIONS = 1000;

export type LocalInputs =
  | { shape: "merged"; datasetPath: string }
  | { shape: "split"; controlPath: string; perturbedPath: string; degsJson: string }
  /** Command line only: a DEG list (and DE table) instead of data. */
  | { shape: "contrast"; build: (model: Model) => Contrast };

export interface PredictionRun {
  predictionId: string;
  jobType: JobType;
  target: string | null;
  params: PredictionParams;
  model: Model;
  inputs: LocalInputs;
  out: ArtifactWriter;
  reporter: Reporter;
  metadata: RunMetadata;
  /** Target scoring; the model version's own (its manifest's `scoring`) when omitted. */
  scoring?: ScoringVersion;
  /** Columns, control level, cell type and species the submitter named. */
  dataset?: DatasetOptions;
  /** The model version's mouse–human orthologues (species=mouse, and the species check); null without. */
  orthologues?: OrthologueTable | null;
}

export type JobSuccess = Omit<CompletedCallback, "job_id" | "kind" | "attempt" | "seq" | "status">;

/** Runs the job; throws JobFailure with everything stored so far already written. */
export async function runPrediction(run: PredictionRun): Promise<JobSuccess> {
  const { model, reporter, metadata } = run;
  const contrasts = await buildContrasts(run);
  const targetSymbol = run.jobType === "target_validation" ? resolveTarget(model, run.target) : null;
  await reporter.step("degs_mapped");
  await reporter.step("model_loaded");

  const scoring = run.scoring ?? model.manifest.scoring;
  metadata.set("scoring", {
    version: scoring,
    hub_exponent: model.manifest.hub_exponent,
    ...scoringOf(scoring).settings(model),
  });
  const results: { contrast: Contrast; scores: ScoreTargetsResult }[] = [];
  for (const contrast of contrasts) {
    await writeDegArtifacts(run.out, contrast);
    await writePseudoBulkArtifacts(run.out, contrast);
    const scores = metadata.time(`scores${contrast.prefix}`, () =>
      scoringOf(scoring).score(
        scoringInputOf({
          model,
          contrast,
          params: run.params,
          scoring,
          predictionId: run.predictionId,
          jobType: run.jobType,
        }),
      ),
    );
    metadata.addResultSet(contrast, scores);
    await writeScoreArtifacts(run.out, contrast, scores);
    results.push({ contrast, scores });
  }
  await reporter.step("scores_computed");
  if (run.params.n_randomizations > 0) await reporter.step("randomizations_completed");

  if (targetSymbol !== null) await validateTarget(run, targetSymbol, results[0]!);

  const warnings = collectWarnings({
    contrasts,
    scores: results.map((r) => r.scores),
    species: (run.dataset ?? DEFAULT_DATASET_OPTIONS).species,
    orthologues: run.orthologues ?? null,
    suppliedDegs: suppliedDegsOf(run.inputs),
  });
  metadata.set("warnings", warnings);
  await metadata.write(run.out);
  await reporter.step("results_uploaded");
  return {
    result_files: run.out.files(),
    dataset_summary: summaryOf(contrasts),
    result_sets: contrasts.map((c) => c.prefix),
    warnings,
  };
}

/** The entries of a split upload's DEG list as sent (for the species check). */
function suppliedDegsOf(inputs: LocalInputs): string[] | null {
  if (inputs.shape !== "split") return null;
  try {
    const parsed: unknown = JSON.parse(inputs.degsJson);
    return Array.isArray(parsed) ? parsed.filter((d): d is string => typeof d === "string") : null;
  } catch {
    return null;
  }
}

/** How this job reads gene identifiers: human symbols, or mouse symbols through orthologues. */
function resolverOf(run: PredictionRun) {
  const species = (run.dataset ?? DEFAULT_DATASET_OPTIONS).species;
  try {
    return speciesResolver(run.model.symbols, run.orthologues ?? null, species);
  } catch (err) {
    if (!(err instanceof NoOrthologueTable)) throw err;
    throw new JobFailure(
      "gene_symbols_unmapped",
      `species=mouse needs a mouse–human orthologue table, and model version ${run.model.manifest.version} has none. Use a model version imported with one, or human gene symbols.`,
    );
  }
}

async function buildContrasts(run: PredictionRun): Promise<Contrast[]> {
  const { model, reporter, metadata, inputs } = run;
  if (inputs.shape === "contrast") {
    const contrast = inputs.build(model);
    await reporter.step("inputs_validated");
    return [contrast];
  }
  if (inputs.shape === "merged") {
    const prepared = await metadata.timeAsync("inputs", () =>
      prepareMergedDataset(inputs.datasetPath, {
        symbols: resolverOf(run),
        maxObsPerArm: MAX_OBSERVATIONS,
        ...(run.dataset ? { dataset: run.dataset } : {}),
      }),
    );
    await reporter.step("inputs_validated");
    await reporter.step("pseudobulk_built");
    const prefixes = resultSetPrefixes(prepared.map((p) => p.perturbedLevel));
    const contrasts = metadata.time("de", () =>
      prepared.map((p) => contrastFromMerged(model, p, prefixes.get(p.perturbedLevel)!)),
    );
    await reporter.step("de_completed");
    return contrasts;
  }
  const prepared = await metadata.timeAsync("inputs", () =>
    prepareSplitDataset(inputs.controlPath, inputs.perturbedPath, inputs.degsJson, {
      symbols: resolverOf(run),
      maxObsPerFile: MAX_OBSERVATIONS,
      ...(run.dataset ? { dataset: run.dataset } : {}),
    }),
  );
  await reporter.step("inputs_validated");
  await reporter.step("pseudobulk_built");
  const contrast = metadata.time("de", () => contrastFromSplit(model, prepared));
  await reporter.step("de_completed");
  return [contrast];
}

/** §9 step 1: the target, normalized like any symbol, must be a PROTEIN node of the model. */
function resolveTarget(model: Model, target: string | null): string {
  const raw = target === null ? "" : (parseEntityId(target)?.symbol ?? target.trim());
  const symbol = model.symbols.resolve(raw) ?? raw;
  if (raw === "" || model.proteinIndex(symbol) < 0) {
    throw new JobFailure(
      "target_not_in_interactome",
      `The target ${target ?? "(none)"} is not a protein of the interactome of model ${model.manifest.version}. ` +
        "Give an HGNC symbol of a protein the network contains, as SYMBOL|PROTEIN.",
    );
  }
  return symbol;
}

/** §9 steps 4–5: the target's own row, then its causal analysis. */
async function validateTarget(
  run: PredictionRun,
  target: string,
  { contrast, scores }: { contrast: Contrast; scores: ScoreTargetsResult },
): Promise<void> {
  const row = scores.rows.find((r) => r.id === proteinId(target));
  if (row) {
    await run.out.writeJson(contrast.prefix + ARTIFACTS.targetValidation, {
      target: row.id,
      rank: row.rank,
      rank_percentage: row.rank_percentage,
      score: row.score,
      pvalue: row.pvalue,
      z_score: row.z_score,
      n_degs_significant: row.n_degs_significant,
      percentage_degs_significant: row.percentage_degs_significant,
      n_candidates: scores.rows.length,
    });
  }
  const step: CausalStepInput = {
    model: run.model,
    target,
    mappedDegs: contrast.mappedDegs,
    foldChanges: contrast.log2fc,
    params: run.params,
    prefix: contrast.prefix,
  };
  await runCausalStep(run, step);
}

function summaryOf(contrasts: Contrast[]): DatasetSummary | null {
  return contrasts[0]?.summary ?? null;
}
