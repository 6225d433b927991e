/** Impacted DEGs of a target (model.md §10.1–10.2). */
import { JobFailure } from "@causeway/contract";
import type { Model } from "../model/index.ts";
import { compareIds } from "../model/index.ts";

/** One mapped DEG as seen from the target: I(t,d) and X(t,d). */
export interface DegInfluence {
  deg: string;
  /** Index of `deg|RNA` in V_R. */
  rna: number;
  score_deg_given_target: number;
  /** X(t,d) = log2(I/B); NaN when I = 0. */
  log2_fold_uniform: number;
}

/** Options of `impactedDegs`. */
export interface ImpactedDegsOptions {
  topNCausalDegs: number;
  minDegsFoldUniform: number | null;
}

/**
 * I(t,d) and X(t,d) for every mapped DEG (in the given order), from the bundle row of `t`.
 * Throws target_not_in_interactome when the model has no PROTEIN node for `t`.
 */
export function degInfluences(model: Model, target: string, degs: readonly string[]): DegInfluence[] {
  const row = model.influenceOf(target);
  if (!row) {
    throw new JobFailure(
      "target_not_in_interactome",
      `The target ${target} has no protein node in the interactome of model ${model.manifest.version}. Choose a protein the model contains.`,
    );
  }
  const out: DegInfluence[] = [];
  const seen = new Set<string>();
  for (const deg of degs) {
    const rna = model.rnaIndex(deg);
    if (rna < 0 || seen.has(deg)) continue;
    seen.add(deg);
    const i = row[rna]!;
    out.push({
      deg,
      rna,
      score_deg_given_target: i,
      log2_fold_uniform: i > 0 ? Math.log2(i / model.baseline[rna]!) : NaN,
    });
  }
  return out;
}

/**
 * D_t: DEGs with I(t,d) > 0 (and X ≥ min_degs_fold_uniform when set), sorted by I descending,
 * X descending, symbol ascending, cut to top_n_causal_degs. Empty → target_not_reachable.
 */
export function impactedDegs(
  all: readonly DegInfluence[],
  target: string,
  options: ImpactedDegsOptions,
): DegInfluence[] {
  const kept = all
    .filter(
      (d) =>
        d.score_deg_given_target > 0 &&
        (options.minDegsFoldUniform === null || d.log2_fold_uniform >= options.minDegsFoldUniform),
    )
    .sort(
      (a, b) =>
        b.score_deg_given_target - a.score_deg_given_target ||
        b.log2_fold_uniform - a.log2_fold_uniform ||
        compareIds(a.deg, b.deg),
    )
    .slice(0, options.topNCausalDegs);
  if (kept.length === 0) {
    throw new JobFailure(
      "target_not_reachable",
      `No mapped DEG is reachable from ${target} in the interactome${options.minDegsFoldUniform === null ? "" : ` with log2 fold over uniform >= ${options.minDegsFoldUniform}`}.`,
      "no_reachable_deg",
    );
  }
  return kept;
}
