/**
 * Target identification (model.md §7, §8): for every candidate source s ∈ S, its significantly
 * influenced universe genes, the hypergeometric score, ranks, q-values and, optionally, matched
 * randomization p-values and z-scores.
 */
import { proteinId, rnaId, type JobWarning } from "@causeway/contract";
import { V1_WALK, type Model } from "../model/index.ts";
import { benjaminiHochbergDense } from "../stats/multiple-testing.ts";
import { checkMappedDegs } from "./checks.ts";
import { hypergeomScore, hypergeomZ, logFactorials, logHypergeomUpperTail } from "./hypergeometric.ts";
import { randomize, type SignificanceIndicator } from "./randomization.ts";
import type { Scoring } from "./scoring.ts";
import { significantGenes } from "./significant-genes.ts";
import { buildStrata, type StratumGroup } from "./strata.ts";

/** One row of target_scores.tsv (§7, §7.6, §13), in rank order. */
export interface TargetScoreRow {
  id: string;
  node_type: "PROTEIN";
  score: number;
  rank: number;
  rank_percentage: number;
  pvalue: number;
  z_score: number | null;
  is_deg: boolean;
  protein_expressed: boolean | null;
  n_degs_significant: number;
  percentage_degs_significant: number;
  k_expected: number;
  n_universe_significant: number;
  mean_log2_fold_degs: number | null;
  qvalue: number;
  pvalue_method: "hypergeometric" | "randomization";
  [column: string]: string | number | boolean | null;
}

/** One row of randomization_null.tsv (§13), in rank order. */
export interface RandomizationNullRow {
  id: string;
  null_mean_k: number;
  null_sd_k: number | null;
  n_null_ge: number;
  strata: string;
  [column: string]: string | number | boolean | null;
}

/** X(s,d) for the candidates (rows, rank order) and mapped DEGs (columns, given order), §7.8. */
export interface SourceInfluenceMatrix {
  rowIds: string[];
  columnIds: string[];
  /** Row-major float32; NaN where I(s,d) = 0. */
  data: Float32Array;
}

/** Inputs of `scoreTargets`. */
export interface ScoreTargetsInput {
  model: Model;
  /** Universe candidates: symbols of genes that could have been called DEGs (non-model genes ignored). */
  universe: readonly string[];
  /** Mapped DEGs D in matrix column order (§7.8); added to the universe. */
  degs: readonly string[];
  /** f of §7.2. */
  degSignificanceFold: number;
  /** Threshold of `protein_expressed` (§7.5). */
  minMeanExpression: number;
  /** mean_cp10k of the control arm, for `protein_expressed`; absent → null. */
  meanCp10kControl?: ReadonlyMap<string, number>;
  /** The job's DEG symbols after normalization, mapped or not (`is_deg`). */
  isDegSymbols: ReadonlySet<string>;
  /** R of §8.2 (0 = analytic values). */
  nRandomizations: number;
  /** `prediction_id + "/" + prefix`, hashed into the seed (§8.2). */
  seedSource: string;
  /** mean_cp10k over both arms, for the expression strata of §8.2; genes absent → own bin. */
  meanCp10kBoth?: ReadonlyMap<string, number>;
  /** Minimum n (§7.1): 5 for target_id (default), 1 for target_validation. */
  jobType?: "target_id" | "target_validation";
}

/** Everything §7–8 produce for one result set. */
export interface ScoreTargetsResult {
  rows: TargetScoreRow[];
  sourceInfluence: SourceInfluenceMatrix;
  randomizationNull?: RandomizationNullRow[];
  /** Hex of the 8 seed bytes, when R ≥ 1. */
  seedHex?: string;
  /** Strata groups used by the randomization, when R ≥ 1. */
  strata?: StratumGroup[];
  n: number;
  N: number;
  /**
   * Σ over the DEGs of each source's influence I(s, d), in the model's source order (model v4's
   * raw influence): summed in the pass that reads the bundle's rows for the matrix, since a second
   * gather of the same scattered entries costs a v4 job a tenth of its time.
   */
  influenceSum: Float64Array;
  /** Artifact-only columns beyond §7.6 that the rows carry (model v2), in table order. */
  extraColumns?: readonly string[];
  /** What the scoring knows that changes how its result should be read (the job's warnings). */
  warnings?: JobWarning[];
}

/** Universe positions (model RNA indices) with D appended where missing; D positions within it. */
function universeOf(
  model: Model,
  universe: readonly string[],
  degs: readonly string[],
): { genes: Int32Array; degPositions: Int32Array; degSymbols: string[] } {
  const seen = new Map<number, number>();
  const genes: number[] = [];
  const add = (symbol: string): void => {
    const j = model.rnaIndex(symbol);
    if (j >= 0 && !seen.has(j)) {
      seen.set(j, genes.length);
      genes.push(j);
    }
  };
  for (const s of universe) add(s);
  const degSymbols: string[] = [];
  const degSeen = new Set<number>();
  for (const d of degs) {
    const j = model.rnaIndex(d);
    if (j < 0 || degSeen.has(j)) continue;
    degSeen.add(j);
    add(d);
    degSymbols.push(d);
  }
  return {
    genes: Int32Array.from(genes),
    degPositions: Int32Array.from(degSymbols, (d) => seen.get(model.rnaIndex(d))!),
    degSymbols,
  };
}

/** Scores every candidate source against the job's universe and DEGs. */
export function scoreTargets(input: ScoreTargetsInput): ScoreTargetsResult {
  const { model } = input;
  const { genes, degPositions, degSymbols } = universeOf(model, input.universe, input.degs);
  const N = genes.length;
  const n = degPositions.length;
  checkMappedDegs(n, N, input.jobType ?? "target_id");

  const nS = model.nSources;
  const nR = model.nRna;
  const f = input.degSignificanceFold;
  const R = input.nRandomizations;
  const isDegPos = new Uint8Array(N);
  for (const p of degPositions) isDegPos[p] = 1;
  const uB = Float64Array.from(genes, (j) => model.baseline[j]!);

  const K = new Int32Array(nS);
  const k = new Int32Array(nS);
  const meanX = new Array<number | null>(nS);
  const stride = (nS + 3) & ~3;
  const indicator: SignificanceIndicator | null =
    R > 0 ? { nS, stride, bytes: new Uint8Array(N * stride) } : null;
  const matrix = new Float32Array(nS * n);
  const xOf = new Float64Array(n);
  const influenceSum = new Float64Array(nS);

  // Sig(s) (F = I/B >= f, with I > 0, §7.2) over all RNA nodes, then restricted to U.
  const sig = significantGenes(model, f);
  const posInUniverse = new Int32Array(nR).fill(-1);
  genes.forEach((j, u) => (posInUniverse[j] = u));
  for (let s = 0; s < nS; s++) {
    const o = s * nR;
    let Ks = 0;
    let ks = 0;
    for (let e = sig.indptr[s]!; e < sig.indptr[s + 1]!; e++) {
      const u = posInUniverse[sig.indices[e]!]!;
      if (u < 0) continue;
      Ks++;
      if (isDegPos[u] === 1) ks++;
      if (indicator) indicator.bytes[u * stride + s] = 1;
    }
    K[s] = Ks;
    k[s] = ks;
    let sumX = 0;
    let nX = 0;
    let sumI = 0;
    for (let d = 0; d < n; d++) {
      const u = degPositions[d]!;
      const i = model.influence[o + genes[u]!]!;
      sumI += i;
      const x = i > 0 ? Math.log2(i / uB[u]!) : NaN;
      xOf[d] = x;
      if (i > 0) {
        sumX += x;
        nX++;
      }
    }
    influenceSum[s] = sumI;
    meanX[s] = nX > 0 ? sumX / nX : null;
    matrix.set(xOf, s * n);
  }

  const lf = logFactorials(N);
  const score = new Float64Array(nS);
  const pHyp = new Float64Array(nS);
  const zA = new Float64Array(nS);
  for (let s = 0; s < nS; s++) {
    score[s] = hypergeomScore(k[s]!, N, K[s]!, n, lf);
    pHyp[s] = K[s] === 0 ? 1 : Math.exp(logHypergeomUpperTail(k[s]!, N, K[s]!, n, lf));
    zA[s] = hypergeomZ(k[s]!, N, K[s]!, n);
  }

  const ids = model.sourceSymbols;
  const order = Array.from({ length: nS }, (_, i) => i).sort(
    (a, b) =>
      score[b]! - score[a]! ||
      zA[b]! - zA[a]! ||
      k[b]! - k[a]! ||
      (ids[a]! < ids[b]! ? -1 : ids[a]! > ids[b]! ? 1 : 0),
  );

  let strata: StratumGroup[] | undefined;
  let rand: ReturnType<typeof randomize> | undefined;
  if (indicator) {
    const expression = Array.from(genes, (j) => input.meanCp10kBoth?.get(model.rnaSymbols[j]!) ?? null);
    strata = buildStrata(uB, expression, isDegPos);
    rand = randomize(indicator, strata, k, R, input.seedSource);
  }
  const pvalue = rand ? rand.pvalue : pHyp;
  const qvalue = benjaminiHochbergDense(pvalue);

  const rows: TargetScoreRow[] = order.map((s, rank) => {
    const symbol = ids[s]!;
    const expr = input.meanCp10kControl?.get(symbol);
    return {
      id: proteinId(symbol),
      node_type: "PROTEIN",
      score: score[s]!,
      rank,
      rank_percentage: nS > 1 ? rank / (nS - 1) : 0,
      pvalue: pvalue[s]!,
      z_score: rand ? rand.z[s]! : zA[s]!,
      is_deg: input.isDegSymbols.has(symbol),
      protein_expressed: expr === undefined ? null : expr >= input.minMeanExpression,
      n_degs_significant: k[s]!,
      percentage_degs_significant: (100 * k[s]!) / n,
      k_expected: (n * K[s]!) / N,
      n_universe_significant: K[s]!,
      mean_log2_fold_degs: meanX[s]!,
      qvalue: qvalue[s]!,
      pvalue_method: rand ? "randomization" : "hypergeometric",
    };
  });

  const data = new Float32Array(nS * n);
  order.forEach((s, r) => data.set(matrix.subarray(s * n, (s + 1) * n), r * n));
  const result: ScoreTargetsResult = {
    rows,
    sourceInfluence: { rowIds: rows.map((r) => r.id), columnIds: degSymbols.map(rnaId), data },
    influenceSum,
    n,
    N,
  };
  if (rand && strata) {
    const summary = `${strata.length} groups of 60 strata; DEGs per group ${strata.map((g) => g.nDegs).join(",")}`;
    result.randomizationNull = order.map((s) => ({
      id: proteinId(ids[s]!),
      null_mean_k: rand.mean[s]!,
      null_sd_k: Number.isFinite(rand.sd[s]!) ? rand.sd[s]! : null,
      n_null_ge: rand.nGe[s]!,
      strata: summary,
    }));
    result.seedHex = rand.seedHex;
    result.strata = strata;
  }
  return result;
}

/** Model v1 (model.md §7): the propagated hypergeometric p-value on the v1 bundle, nothing else. */
export const SCORING_V1: Scoring = {
  version: "v1",
  walk: V1_WALK,
  layerKinds: [],
  readsTableExpression: false,
  readsPerturbationType: false,
  score: scoreTargets,
  settings: () => ({}),
};
