/**
 * Model v3 target scoring (runner/docs/model-v3.md): data evidence combined with a popularity
 * prior, as a conditional-logit score whose weights were chosen by cross-validation grouped by
 * GEO series over 531 known-answer perturbation experiments.
 *
 *   score = prior_logit + Σ_e w_e · ln(1 + −log10 p_e)
 *   prior_logit = w_deg · ln(1 + out-degree) + w_tf · (TF layers holding the candidate)
 *                 + w_kin · (kinase layers holding it)
 *
 * The evidence p_e: the propagated p-value of model v1 on the v3 bundle (h = 0.5); per evidence
 * layer group (TF binding, TF co-expression, kinase), the truncated Cauchy combination of each
 * layer's Fisher p (the candidate's best set, Bonferroni over its sets); and ln(1 + |t|) of the
 * ULM activity of the signed DEG indicator (sign of the fold change on the DEGs, 0 elsewhere).
 * A candidate without a piece of evidence gets 0 for it. Each row reports the data-only p-value
 * (`pvalue_data`: the truncated Cauchy combination of the propagated and layer p-values; the
 * ULM t has no calibrated p-value on a sparse indicator, and the prior never enters a p-value),
 * the prior (`prior`: the softmax of prior_logit over the candidates, the probability of being
 * the driver before the data is read), and `score`, which orders the table.
 *
 * Absence from a file is not evidence of absence: a candidate whose gene the job did not
 * measure keeps its place (`gene_measured = false` flags it); only the expression test of v2
 * (a control arm deep enough to show the gene is not expressed) moves a candidate down.
 */
import { V3_EXTRA_COLUMNS } from "@causeway/contract";
import type { Model } from "../model/index.ts";
import { GENE_SET_KINDS, type EvidenceLayer, type GeneSetKind, type LayerKind } from "../libraries/gmt.ts";
import { benjaminiYekutieli } from "../stats/multiple-testing.ts";
import { cauchy } from "./combine-pvalues.ts";
import { directEvidence } from "./direct-targets.ts";
import { logFactorials, logHypergeomUpperTail } from "./hypergeometric.ts";
import { rankTiers, SCORING_V2, singleEdgeProxies, type ScoreTargetsV2Input } from "./score-targets-v2.ts";
import { scoreTargets, type ScoreTargetsResult, type TargetScoreRow } from "./score-targets-v1.ts";
import type { Scoring } from "./scoring.ts";
import { ulmActivity } from "./ulm.ts";

/** The weights of the v3 score (conditional logit, fitted on all 531 cases; model-v3.md). */
export interface V3Weights {
  logOutDegree: number;
  tfLayers: number;
  kinaseLayers: number;
  propagated: number;
  tfBinding: number;
  tfCoexpression: number;
  kinase: number;
  ulm: number;
}

/** Model v3 as shipped (`npm run validate` and model-v3.md show how they were chosen). */
export const V3_WEIGHTS: V3Weights = {
  logOutDegree: 0.29,
  tfLayers: 0.47,
  kinaseLayers: 0.32,
  propagated: 0.28,
  tfBinding: 0.12,
  tfCoexpression: 0.71,
  kinase: 0.42,
  ulm: 1.89,
};

/** Below this p the activation z names an activation state. */
export const ACTIVATION_ALPHA = 0.05;

/** Inputs of `scoreTargetsV3`: v2's, plus the evidence layers (default: the model's own). */
export interface ScoreTargetsV3Input extends ScoreTargetsV2Input {
  layers?: readonly EvidenceLayer[];
  weights?: V3Weights;
}

/** v3 reads the gene-set libraries; a PPI layer is v4's. */
const GROUPS: readonly GeneSetKind[] = GENE_SET_KINDS;
const isGeneSetLayer = (l: EvidenceLayer): boolean => (GROUPS as readonly LayerKind[]).includes(l.kind);
const symbolOf = (id: string): string => id.slice(0, id.lastIndexOf("|"));
const evidence = (p: number): number => (Number.isFinite(p) ? Math.log1p(Math.max(0, -Math.log10(p))) : 0);

/** The job's universe as model RNA indices (universe plus DEGs), and a DEG flag per RNA index. */
function universeOf(
  model: Model,
  input: Pick<ScoreTargetsV2Input, "universe" | "degs">,
): { genes: Int32Array; isDeg: Uint8Array; n: number } {
  const inU = new Uint8Array(model.nRna);
  const genes: number[] = [];
  const add = (s: string): void => {
    const j = model.rnaIndex(s);
    if (j >= 0 && inU[j] === 0) {
      inU[j] = 1;
      genes.push(j);
    }
  };
  for (const s of input.universe) add(s);
  for (const d of input.degs) add(d);
  const isDeg = new Uint8Array(model.nRna);
  let n = 0;
  for (const d of input.degs) {
    const j = model.rnaIndex(d);
    if (j >= 0 && isDeg[j] === 0) {
      isDeg[j] = 1;
      n++;
    }
  }
  return { genes: Int32Array.from(genes), isDeg, n };
}

interface IndexedLayer {
  /** Candidate index of each regulator that is a candidate. */
  candidates: Int32Array;
  /** Its sets, as indices into the layer's genes. */
  sets: (readonly Int32Array[])[];
  /** Model RNA index of each of the layer's genes, −1 where the model has none. */
  rnaOf: Int32Array;
}

/**
 * Who a layer's regulators are as candidates: the model's sources (v1–v3), or v4's wider set
 * (runner/src/scoring/v4/candidates.ts). One object per candidate set: indexed layers are cached
 * by it.
 */
export interface LayerCandidates {
  readonly n: number;
  indexOf(symbol: string): number;
}

const sourceCandidates = new WeakMap<Model, LayerCandidates>();

/** The model's sources as layer candidates (bundle row order). */
export function sourcesAsCandidates(model: Model): LayerCandidates {
  let out = sourceCandidates.get(model);
  if (!out) sourceCandidates.set(model, (out = { n: model.nSources, indexOf: (s) => model.sourceIndex(s) }));
  return out;
}

// A layer's regulators and genes resolved to indices once per candidate set (a job scores with
// one model). The sets themselves are not copied: a gene's RNA index is looked up per use.
const indexedLayers = new WeakMap<LayerCandidates, WeakMap<EvidenceLayer, IndexedLayer>>();
const rnaIndices = new WeakMap<Model, WeakMap<readonly string[], Int32Array>>();

function rnaIndicesOf(model: Model, genes: readonly string[]): Int32Array {
  let byGenes = rnaIndices.get(model);
  if (!byGenes) rnaIndices.set(model, (byGenes = new WeakMap()));
  let out = byGenes.get(genes);
  if (!out) byGenes.set(genes, (out = Int32Array.from(genes, (g) => model.rnaIndex(g))));
  return out;
}

function indexedLayer(model: Model, layer: EvidenceLayer, cands: LayerCandidates): IndexedLayer {
  let byLayer = indexedLayers.get(cands);
  if (!byLayer) indexedLayers.set(cands, (byLayer = new WeakMap()));
  let out = byLayer.get(layer);
  if (!out) {
    const candidates: number[] = [];
    const sets: (readonly Int32Array[])[] = [];
    for (const [regulator, list] of layer.sets) {
      const s = cands.indexOf(regulator);
      if (s < 0) continue;
      candidates.push(s);
      sets.push(list);
    }
    out = { candidates: Int32Array.from(candidates), sets, rnaOf: rnaIndicesOf(model, layer.genes) };
    byLayer.set(layer, out);
  }
  return out;
}

/** The job's universe and DEGs as layer tests see them. */
interface LayerTest {
  inU: Uint8Array;
  isDeg: Uint8Array;
  N: number;
  n: number;
  lf: Float64Array;
}

/**
 * Per candidate, one layer's p-value (NaN where the layer holds no set of the candidate): a
 * Fisher test (right-tailed hypergeometric) of every set against the DEGs over the job's
 * universe, the best set per candidate, Bonferroni over its sets.
 */
function layerP(model: Model, layer: EvidenceLayer, t: LayerTest, cands: LayerCandidates): Float64Array {
  const ps = new Float64Array(cands.n).fill(NaN);
  const indexed = indexedLayer(model, layer, cands);
  const { rnaOf } = indexed;
  for (let r = 0; r < indexed.candidates.length; r++) {
    let best = Infinity;
    let m = 0;
    for (const set of indexed.sets[r]!) {
      let K = 0;
      let k = 0;
      for (const g of set) {
        const j = rnaOf[g]!;
        if (j < 0 || t.inU[j] === 0) continue;
        K++;
        k += t.isDeg[j]!;
      }
      if (K === 0) continue;
      m++;
      best = Math.min(best, logHypergeomUpperTail(k, t.N, K, t.n, t.lf));
    }
    if (m > 0) ps[indexed.candidates[r]!] = Math.min(1, Math.exp(best) * m);
  }
  return ps;
}

function layerTest(model: Model, input: Pick<ScoreTargetsV2Input, "universe" | "degs">): LayerTest {
  const { genes, isDeg, n } = universeOf(model, input);
  const inU = new Uint8Array(model.nRna);
  for (const j of genes) inU[j] = 1;
  return { inU, isDeg, N: genes.length, n, lf: logFactorials(genes.length) };
}

/**
 * Per layer group and candidate, the truncated Cauchy combination of the group's layer p-values
 * (NaN where no layer of the group holds a set of it), and how many layers of the group hold one.
 */
export function layerGroupEvidence<K extends LayerKind>(
  model: Model,
  input: Pick<ScoreTargetsV2Input, "universe" | "degs">,
  layers: readonly EvidenceLayer[],
  groups: readonly K[],
  cands: LayerCandidates,
): { p: Map<K, Float64Array>; count: Map<K, Int32Array> } {
  const t = layerTest(model, input);
  const p = new Map<K, Float64Array>();
  const count = new Map<K, Int32Array>();
  for (const g of groups) {
    const ps = layers.filter((l) => l.kind === g).map((l) => layerP(model, l, t, cands));
    p.set(
      g,
      Float64Array.from({ length: cands.n }, (_, s) => {
        const avail = ps.map((x) => x[s]!).filter(Number.isFinite);
        return avail.length === 0 ? NaN : cauchy(avail, true);
      }),
    );
    const c = new Int32Array(cands.n);
    for (const l of layers)
      if (l.kind === g) for (const s of indexedLayer(model, l, cands).candidates) c[s]!++;
    count.set(g, c);
  }
  return { p, count };
}

/**
 * Per layer (in order) and source, the layer's Fisher p-value of the DEGs over the universe
 * (NaN where the layer holds no set of the source): what v3 combines, and what a ChEA3/KEA3-style
 * integration ranks by.
 */
export function layerPValues(
  model: Model,
  layers: readonly EvidenceLayer[],
  universe: readonly string[],
  degs: readonly string[],
): Float64Array[] {
  const t = layerTest(model, { universe, degs });
  return layers.map((layer) => layerP(model, layer, t, sourcesAsCandidates(model)));
}

/** Scores every candidate with model v3. */
export function scoreTargetsV3(input: ScoreTargetsV3Input): ScoreTargetsResult {
  const { model } = input;
  const w = input.weights ?? V3_WEIGHTS;
  const layers = input.layers ?? model.layers;
  const v1 = input.v1 ?? scoreTargets(input);
  const nS = model.nSources;
  const { genes, isDeg, n } = universeOf(model, input);
  const lf = logFactorials(genes.length);

  const { p: groupP, count } = layerGroupEvidence(model, input, layers, GROUPS, sourcesAsCandidates(model));

  // The signed DEG indicator: +1 / −1 on DEGs by the sign of their fold change, 0 on every other
  // gene of the universe. Bounded, so the slope's t keeps its reference distribution.
  const signed = new Map<string, number>();
  let nSigned = 0;
  for (const j of genes) {
    const sym = model.rnaSymbols[j]!;
    const fc = isDeg[j] === 1 ? input.log2fc?.get(sym) : undefined;
    const sg = fc === undefined || fc === null || !Number.isFinite(fc) ? 0 : Math.sign(fc);
    if (sg !== 0) nSigned++;
    signed.set(sym, sg);
  }
  const ulm = nSigned > 0 ? ulmActivity(model, signed, 5, false) : null;

  const view = {
    genes,
    isDeg: Uint8Array.from(genes, (j) => isDeg[j]!),
    log2fc: Float64Array.from(genes, (j) => input.log2fc?.get(model.rnaSymbols[j]!) ?? NaN),
    n,
  };
  const direct = directEvidence(model, view, lf);
  const proxyOf = singleEdgeProxies(model);

  const bySource: TargetScoreRow[] = new Array<TargetScoreRow>(nS);
  for (const r of v1.rows) bySource[model.sourceIndex(symbolOf(r.id))] = r;
  const ids = model.sourceSymbols;
  const tfB = groupP.get("tf_binding")!;
  const tfC = groupP.get("tf_coexpression")!;
  const kin = groupP.get("kinase")!;
  const nTf = count.get("tf_binding")!.map((c, s) => c + count.get("tf_coexpression")![s]!);
  const nKin = count.get("kinase")!;
  const priorLogit = new Float64Array(nS);
  const score = new Float64Array(nS);
  const pData = new Float64Array(nS);
  for (let s = 0; s < nS; s++) {
    priorLogit[s] =
      w.logOutDegree * Math.log1p(model.outDegree(ids[s]!)) +
      w.tfLayers * nTf[s]! +
      w.kinaseLayers * nKin[s]!;
    score[s] =
      priorLogit[s]! +
      w.propagated * evidence(bySource[s]!.pvalue) +
      w.tfBinding * evidence(tfB[s]!) +
      w.tfCoexpression * evidence(tfC[s]!) +
      w.kinase * evidence(kin[s]!) +
      w.ulm * (ulm && Number.isFinite(ulm.t[s]!) ? Math.log1p(Math.abs(ulm.t[s]!)) : 0);
    pData[s] = cauchy([bySource[s]!.pvalue, tfB[s]!, tfC[s]!, kin[s]!].filter(Number.isFinite), true);
  }
  let maxLogit = -Infinity;
  for (const v of priorLogit) maxLogit = Math.max(maxLogit, v);
  let z = 0;
  for (const v of priorLogit) z += Math.exp(v - maxLogit);

  const { tiers, measured, pExpressed } = rankTiers(
    input,
    { evidence: "propagated", combine: "cauchy", unmeasured: "in_place" },
    bySource,
    new Int32Array(nS).fill(-1),
  );
  const order = Array.from({ length: nS }, (_, i) => i).sort(
    (a, b) =>
      tiers[a]! - tiers[b]! ||
      score[b]! - score[a]! ||
      pData[a]! - pData[b]! ||
      (ids[a]! < ids[b]! ? -1 : ids[a]! > ids[b]! ? 1 : 0),
  );
  const q = benjaminiYekutieli(pData);
  const finite = (v: number): number | null => (Number.isFinite(v) ? v : null);
  const rows: TargetScoreRow[] = order.map((s, rank) => {
    const r = bySource[s]!;
    const t = ulm ? ulm.t[s]! : NaN;
    return {
      ...r,
      score: score[s]!,
      rank,
      rank_percentage: nS > 1 ? rank / (nS - 1) : 0,
      pvalue: pData[s]!,
      qvalue: q[s]!,
      pvalue_data: pData[s]!,
      prior: Math.exp(priorLogit[s]! - maxLogit) / z,
      prior_logit: priorLogit[s]!,
      pvalue_propagated: r.pvalue,
      pvalue_tf_binding: finite(tfB[s]!),
      pvalue_tf_coexpression: finite(tfC[s]!),
      pvalue_kinase: finite(kin[s]!),
      n_layers: nTf[s]! + nKin[s]!,
      pvalue_direct: finite(direct.pOverlap[s]!),
      n_direct_targets: direct.nTargets[s]!,
      n_direct_target_degs: direct.nTargetDegs[s]!,
      ulm_t: finite(t),
      activation_z: finite(direct.activationZ[s]!),
      pvalue_direction: finite(direct.pDirection[s]!),
      activation_state: activationState(direct.activationZ[s]!, direct.pDirection[s]!),
      proxy_of: proxyOf[s]! >= 0 ? `${ids[proxyOf[s]!]!}|PROTEIN` : null,
      gene_measured: measured[s] ?? null,
      pvalue_expressed: finite(pExpressed[s]!),
    };
  });

  const v1RowOf = new Int32Array(nS);
  v1.rows.forEach((r, i) => (v1RowOf[model.sourceIndex(symbolOf(r.id))] = i));
  const cols = v1.n;
  const data = new Float32Array(nS * cols);
  order.forEach((s, i) =>
    data.set(v1.sourceInfluence.data.subarray(v1RowOf[s]! * cols, (v1RowOf[s]! + 1) * cols), i * cols),
  );
  const result: ScoreTargetsResult = {
    ...v1,
    rows,
    sourceInfluence: { rowIds: rows.map((r) => r.id), columnIds: v1.sourceInfluence.columnIds, data },
    extraColumns: V3_EXTRA_COLUMNS,
  };
  if (v1.randomizationNull) {
    const nulls = v1.randomizationNull;
    result.randomizationNull = order.map((s) => nulls[v1RowOf[s]!]!);
  }
  return result;
}

/**
 * The predicted activation state: the sign of the IPA-style activation z (v2's, from the signed
 * edges into DEGs with a fold change or a sign) when its two-sided p is below 0.05. It flips
 * with a global sign flip of the fold changes; its p-value, and so the ranking, does not. (The
 * ULM t is not used for the state: on a sparse signed indicator its normal p-value is far too
 * small on random lists, so it enters only the score, never a p-value.)
 */
export function activationState(
  activationZ: number,
  pDirection: number,
): "activated" | "inhibited" | "undetermined" {
  if (Number.isFinite(pDirection) && pDirection < ACTIVATION_ALPHA && activationZ !== 0)
    return activationZ > 0 ? "activated" : "inhibited";
  return "undetermined";
}

/**
 * Model v3: v1's propagated evidence on v2's bundle (its walk), the evidence layers of its model
 * version and the fitted weights (runner/docs/model-v3.md).
 */
export const SCORING_V3: Scoring = {
  version: "v3",
  walk: SCORING_V2.walk,
  layerKinds: GENE_SET_KINDS,
  readsTableExpression: true,
  readsPerturbationType: false,
  score: scoreTargetsV3,
  settings: (model) => ({
    weights: V3_WEIGHTS,
    layers: model.layers.filter((l) => isGeneSetLayer(l)).map((l) => ({ name: l.name, kind: l.kind })),
  }),
};
