/**
 * Causal analysis of one target (model.md §10): impacted DEGs, then the kept causal paths.
 * Both jobs that run it (target_validation step 5, standalone causal analysis) call this.
 */
import { JobFailure, parseEntityId } from "@causeway/contract";
import type { Model } from "../model/index.ts";
import { degInfluences, impactedDegs, type DegInfluence } from "./impacted-degs.ts";
import { causalPaths, type CausalPathRow } from "./paths.ts";

/** Parameters of §10 with the contract's defaults (CausalParams). */
export interface CausalAnalysisInput {
  model: Model;
  /** `SYMBOL|PROTEIN` or a bare symbol. */
  target: string;
  /** Mapped DEGs D (symbols). */
  degs: readonly string[];
  /** log2FC by gene symbol, for deg_logFC and path_logFC. */
  foldChanges?: ReadonlyMap<string, number | null>;
  topNCausalDegs?: number;
  minPathFraction?: number;
  minPathProbability?: number;
  /** In nodes; null → the model's default L (6 in v1). */
  maxPathLength?: number | null;
  minDegsFoldUniform?: number | null;
  /** −1 loss of function (default), +1 activation. */
  modality?: -1 | 1;
}

/** One row of degs_impacted.tsv (§13). */
export interface ImpactedDegRow {
  deg: string;
  score_deg_given_target: number;
  log2_fold_uniform: number | null;
  deg_logFC: number | null;
  order: number;
  [column: string]: string | number | boolean | null;
}

/** Everything §10 produces for one target. */
export interface CausalAnalysisResult {
  /** Target symbol. */
  target: string;
  /** D_t rows in order. */
  impacted: ImpactedDegRow[];
  /** D_t symbols (DegsImpactedResponse.degs). */
  degs: string[];
  degsTotal: number;
  minDegFoldUniform: number | null;
  topNCausalDegs: number;
  /** I(t,d) and X(t,d) for every mapped DEG, in the given order (§10.1). */
  allDegs: DegInfluence[];
  paths: CausalPathRow[];
  /** Parameters actually used. */
  maxPathLength: number;
  minPathProbability: number;
  minPathFraction: number;
  /** Prefixes expanded by the search. */
  expansions: number;
}

/**
 * The target's symbol: an entity id's symbol or a bare symbol, normalized (§3.4) when it is not
 * a protein of the model as given. An RNA id is no protein target (target_not_in_interactome).
 */
function targetSymbol(model: Model, target: string): string {
  const parsed = parseEntityId(target);
  if (parsed?.type === "RNA") {
    throw new JobFailure(
      "target_not_in_interactome",
      `The target ${target} is an RNA node; targets are proteins (SYMBOL|PROTEIN).`,
    );
  }
  const symbol = parsed?.symbol ?? target.trim();
  return model.proteinIndex(symbol) >= 0 ? symbol : (model.symbols.resolve(symbol) ?? symbol);
}

/** Runs §10.1–10.6 for one target; throws JobFailure for the failures of §10 and §14. */
export function causalAnalysis(input: CausalAnalysisInput): CausalAnalysisResult {
  const { model } = input;
  const target = targetSymbol(model, input.target);
  const topNCausalDegs = input.topNCausalDegs ?? 1000;
  const minDegsFoldUniform = input.minDegsFoldUniform ?? null;
  const maxPathLength = input.maxPathLength ?? model.manifest.default_max_path_length;
  const minPathProbability = input.minPathProbability ?? 1e-4;
  const minPathFraction = input.minPathFraction ?? 0.1;
  const allDegs = degInfluences(model, target, input.degs);
  const impacted = impactedDegs(allDegs, target, { topNCausalDegs, minDegsFoldUniform });
  const { rows, expansions } = causalPaths(model, target, impacted, {
    minPathProbability,
    minPathFraction,
    maxPathLength,
    foldChanges: input.foldChanges,
    modality: input.modality,
  });
  return {
    target,
    impacted: impacted.map((d, order) => ({
      deg: d.deg,
      score_deg_given_target: d.score_deg_given_target,
      log2_fold_uniform: Number.isNaN(d.log2_fold_uniform) ? null : d.log2_fold_uniform,
      deg_logFC: input.foldChanges?.get(d.deg) ?? null,
      order,
    })),
    degs: impacted.map((d) => d.deg),
    degsTotal: impacted.length,
    minDegFoldUniform: minDegsFoldUniform,
    topNCausalDegs,
    allDegs,
    paths: rows,
    maxPathLength,
    minPathProbability,
    minPathFraction,
    expansions,
  };
}
