/**
 * Model v2 target scoring (runner/docs/model-v2.md). It starts from the v1 result (the
 * propagated evidence of model.md §7, unchanged) and adds:
 *
 * - direct-target evidence: the overlap p-value of the candidate's own transcriptional targets
 *   with the DEGs, combined with the propagated p-value by a parameter-free rule, so a TF whose
 *   walk mass leaks into hubs is still found by its own regulon (hub dilution);
 * - optionally a direction p-value from an IPA-style activation z (two-sided, so a DE table
 *   with an inverted sign convention ranks the same), or the p-value of a ULM TF activity
 *   (decoupler's method, ulm.ts) on the normal scores of every measured gene's fold change;
 * - single-edge proxies: a protein whose only out-edge enters another candidate carries no
 *   evidence of its own; it is ranked right after the candidate it feeds (`proxy_of`);
 * - expression: candidates whose gene is not expressed in the control arm
 *   (`protein_expressed = false`) are ranked after every other candidate, when the counts are
 *   deep enough to say so (`pvalueExpressed`); optionally, candidates
 *   whose gene the job's data did not measure at all rank after the measured ones (a driver must
 *   be expressed in the cells, and the data gives no support that an unmeasured gene is);
 * - `qvalue` is Benjamini–Yekutieli instead of Benjamini–Hochberg (stats/multiple-testing.ts says why).
 *
 * The result has v1's shape and columns plus artifact-only columns (model.md §7.6 allows them).
 */
import { V2_EXTRA_COLUMNS } from "@causeway/contract";
import poissonCdf from "@stdlib/stats-base-dists-poisson-cdf";
import { V1_WALK, type Model } from "../model/index.ts";
import { benjaminiYekutieli } from "../stats/multiple-testing.ts";
import { combine, type CombineRule } from "./combine-pvalues.ts";
import { directEvidence } from "./direct-targets.ts";
import { logFactorials } from "./hypergeometric.ts";
import type { Scoring } from "./scoring.ts";
import { ulmActivity } from "./ulm.ts";
import {
  scoreTargets,
  type ScoreTargetsInput,
  type ScoreTargetsResult,
  type TargetScoreRow,
} from "./score-targets-v1.ts";

/** Which evidence enters the combined p-value. */
export type V2Evidence =
  "propagated" | "propagated+direct" | "propagated+direct+direction" | "propagated+direct+ulm";

/**
 * Where a candidate whose gene the job's data did not measure ranks: in place (by its evidence,
 * like any other), or after every measured candidate (and before the measured but not expressed
 * ones, which the data speaks against). Jobs without measured genes (a bare DEG list) rank
 * every candidate in place.
 */
export type UnmeasuredRule = "in_place" | "after_measured";

/** The settings of model v2, chosen by leave-one-case-out cross-validation (validation/cross-validation.ts). */
export interface V2Settings {
  evidence: V2Evidence;
  combine: CombineRule;
  unmeasured: UnmeasuredRule;
}

/** Model v2 defaults: the setting chosen by cross-validation over all shared known-answer cases. */
export const V2_DEFAULTS: V2Settings = {
  evidence: "propagated+direct",
  combine: "cauchy",
  unmeasured: "after_measured",
};

/** Inputs of `scoreTargetsV2`: v1's, plus fold changes for the direction score. */
export interface ScoreTargetsV2Input extends ScoreTargetsInput {
  /** log2 fold change per symbol (perturbed vs control); absent or null → unknown. */
  log2fc?: ReadonlyMap<string, number | null>;
  /** The DE test's signed statistic per tested gene, when the job has one (model v4 reads it). */
  testStatistic?: ReadonlyMap<string, number>;
  /**
   * Every gene the job's data measured (the count matrix's genes, or a DE table's rows, plus the
   * DEGs); absent when the job has only a DEG list.
   */
  measuredGenes?: ReadonlySet<string>;
  /** Pooled raw counts of the control arm per gene and their total, when the job has counts. */
  controlDepth?: ControlDepth;
  settings?: V2Settings;
  /** The v1 result for the same input, when the caller already has it (validation, benchmarks). */
  v1?: ScoreTargetsResult;
}

/** The control arm's pooled counts: whether a low mean is absence or too few reads to tell. */
export interface ControlDepth {
  librarySize: number;
  counts: ReadonlyMap<string, number>;
}

/** Below this `pvalue_expressed`, a gene under the expression threshold counts as not expressed. */
export const NOT_EXPRESSED_ALPHA = 0.05;

/**
 * P[X ≤ count] for X ~ Poisson(librarySize · threshold / 10⁴): how likely the control arm's
 * pooled count is if the gene were expressed at `threshold` counts per 10,000. A small value
 * says the gene is below the threshold; a large one says the arm was too shallow to tell (a
 * sparse single-cell arm can miss an expressed transcription factor, such as STAT1 in resting
 * T cells, which no count-based rule should call absent).
 */
export function pvalueExpressed(count: number, librarySize: number, threshold: number): number {
  return poissonCdf(Math.floor(count), (librarySize * threshold) / 1e4);
}

const symbolOf = (id: string): string => id.slice(0, id.lastIndexOf("|"));

/** For each source, the candidate it only feeds (following chains), or −1. */
export function singleEdgeProxies(model: Model): Int32Array {
  const nS = model.nSources;
  const { indptr, indices } = model.graph.p;
  const { isRna, layerIndex } = model.graph;
  const next = new Int32Array(nS).fill(-1);
  for (let s = 0; s < nS; s++) {
    const u = model.graph.proteinNodes[model.sourceProteins[s]!]!;
    if (indptr[u + 1]! - indptr[u]! !== 1) continue;
    const v = indices[indptr[u]!]!;
    if (isRna[v] === 1) continue;
    next[s] = model.sourceIndex(model.proteinSymbols[layerIndex[v]!]!);
  }
  const resolved = new Int32Array(nS).fill(-1);
  for (let s = 0; s < nS; s++) {
    let t = next[s]!;
    // A cycle of single-edge proteins reaches no RNA node, so none of them is in S; the guard
    // is for safety only.
    for (let steps = 0; t >= 0 && next[t]! >= 0 && steps < nS; steps++) t = next[t]!;
    resolved[s] = t === s ? -1 : t;
  }
  return resolved;
}

/** Universe positions, DEG flags and fold changes as the direct evidence needs them. */
function universeView(
  model: Model,
  input: ScoreTargetsV2Input,
): { genes: Int32Array; isDeg: Uint8Array; log2fc: Float64Array; n: number } {
  const pos = new Map<number, number>();
  const genes: number[] = [];
  const add = (s: string): void => {
    const j = model.rnaIndex(s);
    if (j >= 0 && !pos.has(j)) {
      pos.set(j, genes.length);
      genes.push(j);
    }
  };
  for (const s of input.universe) add(s);
  for (const d of input.degs) add(d);
  const isDeg = new Uint8Array(genes.length);
  let n = 0;
  for (const d of input.degs) {
    const j = model.rnaIndex(d);
    if (j >= 0 && isDeg[pos.get(j)!] === 0) {
      isDeg[pos.get(j)!] = 1;
      n++;
    }
  }
  const log2fc = Float64Array.from(genes, (j) => input.log2fc?.get(model.rnaSymbols[j]!) ?? NaN);
  return { genes: Int32Array.from(genes), isDeg, log2fc, n };
}

/**
 * The rank tier of every candidate: 0 measured (or nothing measured), 1 not measured (with
 * `unmeasured = after_measured`), 2 measured and not expressed. A proxy never outranks the
 * candidate it feeds, so it takes that candidate's tier when lower.
 */
export function rankTiers(
  input: ScoreTargetsV2Input,
  settings: V2Settings,
  bySource: readonly TargetScoreRow[],
  proxyOf: Int32Array,
  /** The candidates' symbols, in the order of `bySource` (model v4 ranks more than the sources). */
  ids: readonly string[] = input.model.sourceSymbols,
): { tiers: Int8Array; measured: (boolean | null)[]; pExpressed: Float64Array } {
  const measured = ids.map((id) => input.measuredGenes?.has(id) ?? null);
  const depth = input.controlDepth;
  const pExpressed = Float64Array.from(ids, (id, s) =>
    depth && bySource[s]!.protein_expressed === false
      ? pvalueExpressed(depth.counts.get(id) ?? 0, depth.librarySize, input.minMeanExpression)
      : NaN,
  );
  // Without counts (a DE table's mean_cp10k_ctrl) the threshold alone decides.
  const notExpressed = (s: number): boolean =>
    bySource[s]!.protein_expressed === false &&
    (Number.isNaN(pExpressed[s]!) || pExpressed[s]! < NOT_EXPRESSED_ALPHA);
  const tier = (s: number): number =>
    notExpressed(s) ? 2 : settings.unmeasured === "after_measured" && measured[s] === false ? 1 : 0;
  const tiers = Int8Array.from(ids, (_, s) => Math.max(tier(s), proxyOf[s]! >= 0 ? tier(proxyOf[s]!) : 0));
  return { tiers, measured, pExpressed };
}

/** Scores every candidate with model v2. */
export function scoreTargetsV2(input: ScoreTargetsV2Input): ScoreTargetsResult {
  const { model } = input;
  const settings = input.settings ?? V2_DEFAULTS;
  const v1 = input.v1 ?? scoreTargets(input);
  const nS = model.nSources;
  const view = universeView(model, input);
  const direct = directEvidence(model, view, logFactorials(view.genes.length));
  const proxyOf = singleEdgeProxies(model);
  const ulm = ulmActivity(model, input.log2fc ?? new Map<string, number | null>(), 5, true);

  const bySource: TargetScoreRow[] = new Array<TargetScoreRow>(nS);
  for (const r of v1.rows) bySource[model.sourceIndex(symbolOf(r.id))] = r;
  const own = new Float64Array(nS);
  for (let s = 0; s < nS; s++) {
    const ps = [bySource[s]!.pvalue];
    if (settings.evidence !== "propagated" && Number.isFinite(direct.pOverlap[s]!))
      ps.push(direct.pOverlap[s]!);
    if (settings.evidence === "propagated+direct+direction" && Number.isFinite(direct.pDirection[s]!))
      ps.push(direct.pDirection[s]!);
    if (settings.evidence === "propagated+direct+ulm" && Number.isFinite(ulm.p[s]!)) ps.push(ulm.p[s]!);
    own[s] = combine(settings.combine, ps);
  }
  // A proxy's evidence is its hub's: it may not rank above it.
  const p = Float64Array.from(own, (v, s) => (proxyOf[s]! >= 0 ? Math.max(v, own[proxyOf[s]!]!) : v));
  const ids = model.sourceSymbols;
  const { tiers, measured, pExpressed } = rankTiers(input, settings, bySource, proxyOf);
  const order = Array.from({ length: nS }, (_, i) => i).sort(
    (a, b) =>
      tiers[a]! - tiers[b]! ||
      p[a]! - p[b]! ||
      (proxyOf[a]! >= 0 ? 1 : 0) - (proxyOf[b]! >= 0 ? 1 : 0) ||
      (bySource[b]!.z_score ?? 0) - (bySource[a]!.z_score ?? 0) ||
      bySource[b]!.n_degs_significant - bySource[a]!.n_degs_significant ||
      (ids[a]! < ids[b]! ? -1 : ids[a]! > ids[b]! ? 1 : 0),
  );
  const q = benjaminiYekutieli(p);
  const rows: TargetScoreRow[] = order.map((s, rank) => {
    const r = bySource[s]!;
    const score = -Math.log10(p[s]!);
    return {
      ...r,
      score: score > 0 ? score : 0,
      rank,
      rank_percentage: nS > 1 ? rank / (nS - 1) : 0,
      pvalue: p[s]!,
      qvalue: q[s]!,
      pvalue_method: r.pvalue_method,
      pvalue_propagated: r.pvalue,
      pvalue_direct: Number.isFinite(direct.pOverlap[s]!) ? direct.pOverlap[s]! : null,
      n_direct_targets: direct.nTargets[s]!,
      n_direct_target_degs: direct.nTargetDegs[s]!,
      activation_z: Number.isFinite(direct.activationZ[s]!) ? direct.activationZ[s]! : null,
      pvalue_direction: Number.isFinite(direct.pDirection[s]!) ? direct.pDirection[s]! : null,
      ulm_t: Number.isFinite(ulm.t[s]!) ? ulm.t[s]! : null,
      pvalue_ulm: Number.isFinite(ulm.p[s]!) ? ulm.p[s]! : null,
      proxy_of: proxyOf[s]! >= 0 ? `${ids[proxyOf[s]!]!}|PROTEIN` : null,
      gene_measured: measured[s] ?? null,
      pvalue_expressed: Number.isFinite(pExpressed[s]!) ? pExpressed[s]! : null,
      evidence: settings.evidence,
      combine: settings.combine,
      unmeasured: settings.unmeasured,
    };
  });

  // Reorder the matrix rows (and the randomization rows) to the v2 rank order.
  const n = v1.n;
  const v1RowOf = new Int32Array(nS);
  v1.rows.forEach((r, i) => (v1RowOf[model.sourceIndex(symbolOf(r.id))] = i));
  const data = new Float32Array(nS * n);
  order.forEach((s, i) =>
    data.set(v1.sourceInfluence.data.subarray(v1RowOf[s]! * n, (v1RowOf[s]! + 1) * n), i * n),
  );
  const result: ScoreTargetsResult = {
    ...v1,
    rows,
    sourceInfluence: { rowIds: rows.map((r) => r.id), columnIds: v1.sourceInfluence.columnIds, data },
    extraColumns: V2_EXTRA_COLUMNS,
  };
  if (v1.randomizationNull) {
    const nulls = v1.randomizationNull;
    result.randomizationNull = order.map((s) => nulls[v1RowOf[s]!]!);
  }
  return result;
}

/**
 * Model v2 as shipped: the walk of its influence bundle (the hub penalty changes the bundle) and its
 * scoring settings, both chosen by leave-one-case-out cross-validation over the shared
 * known-answer cases (runner/docs/model-v2.md).
 */
export const SCORING_V2: Scoring = {
  version: "v2",
  walk: { ...V1_WALK, hubExponent: 0.5 },
  layerKinds: [],
  readsTableExpression: true,
  readsPerturbationType: false,
  score: scoreTargetsV2,
  settings: () => ({ settings: V2_DEFAULTS }),
};
