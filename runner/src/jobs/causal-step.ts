/**
 * The causal part of a job (model.md §10, §11): impacted DEGs, causal paths, the replay
 * inputs of the graph and the graph itself. target_validation runs it as its step 5; a
 * standalone causal analysis runs nothing else.
 */
import { ARTIFACTS, parseEntityId, proteinId, rnaId, type CausalParams } from "@causeway/contract";
import { toTsv } from "../artifacts/tsv.ts";
import { causalAnalysis, type CausalAnalysisResult, type CausalPathRow } from "../causal/index.ts";
import {
  parseCausalGraphInputs,
  renderCausalGraph,
  type CausalGraphInputs,
  type EdgeSign,
} from "../graph/index.ts";
import { ANALYSIS_GRAPH_DEGS } from "../graph/export.ts";
import type { Model } from "../model/index.ts";
import type { ArtifactWriter } from "./artifact-writer.ts";
import type { Reporter } from "./reporter.ts";
import type { RunMetadata } from "./run-metadata.ts";

/** Graph options of a job's own image (model.md §10.8): at most 20 DEGs (as its exports), 200 dpi. */
const JOB_GRAPH_DEGS = ANALYSIS_GRAPH_DEGS;
const JOB_GRAPH_DPI = 200;

const PATH_COLUMNS = [
  "deg",
  "target",
  "path",
  "length",
  "score_path_given_target",
  "path_logFC",
  "deg_logFC",
  "path_probability",
  "path_fraction",
  "path_nodes",
  "edge_signs",
  "path_sign",
  "sign_consistent",
  "edge_evidence",
] as const;

const IMPACTED_COLUMNS = [
  "deg",
  "score_deg_given_target",
  "log2_fold_uniform",
  "deg_logFC",
  "order",
] as const;

export interface CausalStepInput {
  model: Model;
  target: string;
  mappedDegs: readonly string[];
  foldChanges: ReadonlyMap<string, number | null>;
  params: CausalParams;
  prefix: string;
}

/** Computes the analysis; throws JobFailure (target_not_reachable, ...) before anything is written. */
export function runCausal(input: CausalStepInput): CausalAnalysisResult {
  return causalAnalysis({
    model: input.model,
    target: input.target,
    degs: input.mappedDegs,
    foldChanges: input.foldChanges,
    topNCausalDegs: input.params.top_n_causal_degs,
    minPathFraction: input.params.min_path_fraction,
    minPathProbability: input.params.min_path_probability,
    maxPathLength: input.params.max_path_length,
    minDegsFoldUniform: input.params.min_degs_fold_uniform,
  });
}

export async function writeCausalArtifacts(
  out: ArtifactWriter,
  input: CausalStepInput,
  result: CausalAnalysisResult,
): Promise<void> {
  const p = input.prefix;
  await out.write(p + ARTIFACTS.degsImpactedTable, toTsv(IMPACTED_COLUMNS, result.impacted));
  await out.writeJson(p + ARTIFACTS.degsImpacted, {
    target: proteinId(result.target),
    min_deg_fold_uniform: result.minDegFoldUniform,
    top_n_causal_degs: result.topNCausalDegs,
    degs_total: result.degsTotal,
    degs: result.degs,
  });
  await out.write(p + ARTIFACTS.causalPaths, toTsv(PATH_COLUMNS, result.paths));
  await out.writeJson(p + ARTIFACTS.causalGraphInputs, graphInputs(input, result));
}

/** What a job lends its causal step: where artifacts go, where progress and timings are told. */
export interface CausalStepRun {
  out: ArtifactWriter;
  reporter: Reporter;
  metadata: RunMetadata;
}

/** §10 for one target: paths, their artifacts and the graph, reporting the two steps. */
export async function runCausalStep(run: CausalStepRun, step: CausalStepInput): Promise<void> {
  const result = run.metadata.time("causal", () => runCausal(step));
  run.metadata.addCausal(result);
  await writeCausalArtifacts(run.out, step, result);
  await run.reporter.step("causal_completed");
  await run.metadata.timeAsync("graph", () => writeCausalGraph(run.out, step, result));
  await run.reporter.step("graph_rendered");
}

/** Draws the job's own image with the fixed options of model.md §10.8. */
export async function writeCausalGraph(
  out: ArtifactWriter,
  input: CausalStepInput,
  result: CausalAnalysisResult,
): Promise<void> {
  const topNDegs = Math.max(1, Math.min(JOB_GRAPH_DEGS, result.degsTotal));
  const png = await renderCausalGraph(graphInputs(input, result), { topNDegs, dpi: JOB_GRAPH_DPI });
  await out.write(input.prefix + ARTIFACTS.causalGraph, png);
}

/**
 * The replay file of model.md §11: everything the on-demand route needs to redraw. Validated
 * here with the route's own parser, so a bad file fails the job, not a later request.
 */
export function graphInputs(input: CausalStepInput, result: CausalAnalysisResult): CausalGraphInputs {
  return parseCausalGraphInputs(rawGraphInputs(input, result));
}

function rawGraphInputs(input: CausalStepInput, result: CausalAnalysisResult): CausalGraphInputs {
  const log2fc: Record<string, number | null> = {};
  for (const row of result.paths) {
    for (const id of pathNodes(row)) {
      const symbol = parseEntityId(id)?.symbol ?? id;
      log2fc[symbol] = input.foldChanges.get(symbol) ?? null;
    }
  }
  return {
    version: 1,
    target: proteinId(result.target),
    model_version: input.model.manifest.version,
    options: {
      min_path_probability: result.minPathProbability,
      min_path_fraction: result.minPathFraction,
      max_path_length: result.maxPathLength,
    },
    degs: result.impacted.map((d) => ({
      id: rnaId(d.deg),
      score_deg_given_target: d.score_deg_given_target,
    })),
    paths: result.paths.map((row) => {
      const nodes = pathNodes(row);
      return {
        deg: rnaId(row.deg),
        nodes,
        score_path_given_target: row.score_path_given_target,
        edge_signs: row.edge_signs.split(",").map(signOf),
        edge_types: nodes.slice(1).map((id) => (id.endsWith("|RNA") ? "transcriptional" : "signaling")),
      };
    }),
    log2fc,
  };
}

function pathNodes(row: CausalPathRow): string[] {
  return JSON.parse(row.path_nodes) as string[];
}

function signOf(s: string): EdgeSign {
  return s === "+" ? 1 : s === "-" ? -1 : 0;
}
