/**
 * Model v4 target scoring (runner/docs/model-v4.md): a conditional logit over the candidates
 * whose weights were fitted on the development known-answer experiments of known_answers_v2 and
 * known_answers_v3 together, by cross-validation grouped by `split_group`.
 *
 *   score = Σ_f w_f · x_f + Σ_f w_{type,f} · x_f
 *
 * x: the features of v4Features (v3's evidence, raw influence, a DE table's ULM, and where the
 * candidate sits in the network); w_{type,·}: the deviation of the submitter's perturbation type
 * (ligand, drug, knockout, knockdown, overexpression; `unknown` when not given) from the shared
 * weights, so a ligand experiment looks first at ligands and receptors, a knockdown at
 * whatever the data point to. Each row's `probability` is softmax(score / T) over the
 * candidates (T: the temperature that calibrated held-out cases), the probability that this
 * candidate is the driver given that the driver is a candidate; `in_prediction_set` marks the
 * fewest top candidates whose probabilities reach the conformal threshold of the job's
 * calibration group, or a fixed number of them (split conformal, calibrated on held-out cases,
 * every split group weighing the same, to hold the driver 90 % of the time). `pvalue` stays v3's
 * data-only p-value: neither the prior nor the fitted weights enter it.
 */
import { V4_EXTRA_COLUMNS, type JobWarning } from "@causeway/contract";
import { LAYER_KINDS } from "../../libraries/gmt.ts";
import { benjaminiYekutieli } from "../../stats/multiple-testing.ts";
import type { ScoreTargetsResult, TargetScoreRow } from "../score-targets-v1.ts";
import type { Scoring } from "../scoring.ts";
import { rankTiers } from "../score-targets-v2.ts";
import { SCORING_V3, scoreTargetsV3, type ScoreTargetsV3Input } from "../score-targets-v3.ts";
import { cauchy } from "../combine-pvalues.ts";
import { v4Candidates } from "./candidates.ts";
import { sourceClasses } from "./candidate-classes.ts";
import {
  N_V4_FEATURES,
  V4_CLASS_FEATURES,
  V4_FEATURES,
  featureColumn,
  hasLayerEvidence,
  listKindOf,
  layersBeyondV3,
  listSizeOf,
  v4Features,
  type LayersBeyondV3,
  type ListKind,
  type PerturbationType,
  type V4Feature,
} from "./features.ts";
import { MIN_GROUP_CASES, V4_MODEL, type SetRule, type V4Model } from "./weights.ts";

export interface ScoreTargetsV4Input extends ScoreTargetsV3Input {
  /** What the submitter did to the cells; absent → `unknown`. */
  perturbationType?: PerturbationType;
  v4?: V4Model;
}

/** The class features: what the prior (`prior`, `prior_logit`) is made of. */
const CLASS_FEATURES: ReadonlySet<V4Feature> = new Set(V4_CLASS_FEATURES);
/** 1 in the columns of the class features (the score loop reads it per candidate and feature). */
const IS_CLASS_COLUMN = Uint8Array.from(V4_FEATURES, (f) => (CLASS_FEATURES.has(f) ? 1 : 0));

/** Where a candidate sits, in words (the `candidate_class` column). */
function classOf(cls: ReturnType<typeof sourceClasses>, s: number): string {
  if (cls.isTf[s] === 1) return "transcription_factor";
  if (cls.apex[s] === 1) return "signaling_apex";
  if (cls.belowApex[s] === 1) return "below_apex";
  const st = cls.steps[s]!;
  return st === 255 ? "signaling" : `signaling_${Math.min(st, 3)}${st >= 3 ? "+" : ""}_steps`;
}

/** The weights of one group, per feature column: shared plus the type's, the kind's and the group's deviations. */
export function weightsFor(m: V4Model, type: PerturbationType, kind: ListKind): Float64Array {
  const w = new Float64Array(N_V4_FEATURES);
  const group = m.byGroup[`${type}/${kind}`] ?? {};
  V4_FEATURES.forEach(
    (f, i) =>
      (w[i] = (m.shared[f] ?? 0) + (m.byType[type][f] ?? 0) + (m.byKind[kind][f] ?? 0) + (group[f] ?? 0)),
  );
  return w;
}

/** Scores every candidate with model v4. */
export function scoreTargetsV4(input: ScoreTargetsV4Input): ScoreTargetsResult {
  const { model } = input;
  const m = input.v4 ?? V4_MODEL;
  const type: PerturbationType = input.perturbationType ?? "unknown";
  const v3 = scoreTargetsV3(input);
  const layers = layersBeyondV3(input);
  const x = v4Features(input, v3, layers);
  const cands = v4Candidates(model);
  const nC = cands.n;
  const F = N_V4_FEATURES;
  const kind = listKindOf(input);
  const w = weightsFor(m, type, kind);
  const score = new Float64Array(nC);
  const priorLogit = new Float64Array(nC);
  for (let c = 0; c < nC; c++) {
    let v = 0;
    let pr = 0;
    for (let f = 0; f < F; f++) {
      const term = w[f]! * x[c * F + f]!;
      v += term;
      if (IS_CLASS_COLUMN[f] === 1) pr += term;
    }
    score[c] = v;
    priorLogit[c] = pr;
  }
  const probability = softmax(score, m.temperature);
  const prior = softmax(priorLogit, 1);
  const { inSet, setSize } = predictionSet(
    probability,
    m.predictionSet[`${type}/${kind}/${listSizeOf(input.degs.length)}`],
  );

  // v3's rows for the sources; rows of the same shape for the candidates beyond the network.
  const symbolOf = (id: string): string => id.slice(0, id.lastIndexOf("|"));
  const base: TargetScoreRow[] = new Array<TargetScoreRow>(nC);
  for (const r of v3.rows) base[model.sourceIndex(symbolOf(r.id))] = r;
  const finite = (v: number): number | null => (Number.isFinite(v) ? v : null);
  for (let c = cands.nNetwork; c < nC; c++) base[c] = offNetworkRow(input, cands.symbols[c]!, c, layers);
  const { tiers } = rankTiers(
    input,
    { evidence: "propagated", combine: "cauchy", unmeasured: "in_place" },
    base,
    new Int32Array(nC).fill(-1),
    cands.symbols,
  );
  const ids = cands.symbols;
  const pData = Float64Array.from(base, (r) => r.pvalue);
  const last = Uint8Array.from({ length: nC }, (_, c) =>
    c >= cands.nNetwork && !hasLayerEvidence(x, c) ? 1 : 0,
  );
  const order = Array.from({ length: nC }, (_, i) => i).sort(
    (a, b) =>
      tiers[a]! - tiers[b]! ||
      last[a]! - last[b]! ||
      score[b]! - score[a]! ||
      pData[a]! - pData[b]! ||
      (ids[a]! < ids[b]! ? -1 : ids[a]! > ids[b]! ? 1 : 0),
  );
  const q = benjaminiYekutieli(pData);
  const cls = sourceClasses(model);
  const cRaw = featureColumn("raw_influence");
  const cUlmT = featureColumn("ulm_table");
  const rows: TargetScoreRow[] = order.map((c, rank) => {
    const network = c < cands.nNetwork;
    return {
      ...base[c]!,
      score: score[c]!,
      rank,
      rank_percentage: nC > 1 ? rank / (nC - 1) : 0,
      qvalue: q[c]!,
      probability: probability[c]!,
      in_prediction_set: inSet[c] === 1,
      prediction_set_size: setSize,
      perturbation_type: type,
      list_kind: kind,
      candidate_class: network ? classOf(cls, c) : "outside_network",
      candidate_source: cands.source[c]!,
      raw_influence_z: network ? x[c * F + cRaw]! : null,
      ulm_table_t: x[c * F + cUlmT]! > 0 ? x[c * F + cUlmT]! : null,
      pvalue_ppi: finite(layers.ppi[c]!),
      prior: prior[c]!,
      prior_logit: priorLogit[c]!,
    };
  });

  // The influence matrix and the null follow v4's order. The matrix holds the network's
  // candidates only: a candidate beyond the network reaches no DEG through it (its row would be
  // all NaN, I = 0, and would more than double the artifact); it has no null of its own either.
  const v3RowOf = new Int32Array(nC).fill(-1);
  v3.rows.forEach((r, i) => (v3RowOf[model.sourceIndex(symbolOf(r.id))] = i));
  const cols = v3.sourceInfluence.columnIds.length;
  const inNetwork = order.filter((c) => c < cands.nNetwork);
  const data = new Float32Array(inNetwork.length * cols);
  inNetwork.forEach((c, i) => {
    const from = v3RowOf[c]!;
    data.set(v3.sourceInfluence.data.subarray(from * cols, (from + 1) * cols), i * cols);
  });
  const result: ScoreTargetsResult = {
    ...v3,
    rows,
    sourceInfluence: {
      rowIds: inNetwork.map((c) => `${ids[c]!}|PROTEIN`),
      columnIds: v3.sourceInfluence.columnIds,
      data,
    },
    extraColumns: V4_EXTRA_COLUMNS,
  };
  const seen = m.developmentCases[`${type}/${kind}`];
  if (seen < MIN_GROUP_CASES) result.warnings = [fewDevelopmentExperiments(type, kind, seen)];
  if (v3.randomizationNull) {
    const nulls = v3.randomizationNull;
    result.randomizationNull = order.map((c) =>
      v3RowOf[c]! >= 0
        ? nulls[v3RowOf[c]!]!
        : { id: `${ids[c]!}|PROTEIN`, null_mean_k: 0, null_sd_k: null, n_null_ge: 0, strata: "" },
    );
  }
  return result;
}

const KIND_IN_WORDS: Record<ListKind, string> = {
  table: "a DE table",
  signed: "a DEG list signed up and down",
  one_sided: "a DEG list that moves one way",
  unsigned: "a DEG list without signs",
};

/**
 * A job of a (type, kind) group the fit saw few experiments of: its weights and 90 % set are
 * mostly those of other groups, which a reader should know before trusting the probabilities.
 */
function fewDevelopmentExperiments(type: PerturbationType, kind: ListKind, seen: number): JobWarning {
  const like = `${type === "unknown" ? "no perturbation_type" : type}, ${KIND_IN_WORDS[kind]}`;
  return {
    code: "few_development_experiments",
    message:
      `Model v4 was fitted on ${seen === 0 ? "no" : `only ${seen}`} development experiment${seen === 1 ? "" : "s"} ` +
      `like this one (${like}): its probabilities and 90 % set lean on other kinds of experiment and may be less sure than they say.`,
  };
}

/**
 * The prediction set: the fewest most probable candidates whose mass reaches the rule's
 * threshold (APS), or the rule's number of top candidates.
 */
function predictionSet(probability: Float64Array, rule: SetRule): { inSet: Uint8Array; setSize: number } {
  const n = probability.length;
  const byProb = Array.from({ length: n }, (_, i) => i).sort(
    (a, b) => probability[b]! - probability[a]! || a - b,
  );
  const inSet = new Uint8Array(n);
  let mass = 0;
  let setSize = 0;
  for (const c of byProb) {
    if (rule.rule === "top" && setSize >= rule.value) break;
    inSet[c] = 1;
    setSize++;
    mass += probability[c]!;
    if (rule.rule === "aps" && mass >= rule.value) break;
  }
  return { inSet, setSize };
}

/**
 * The row of a candidate beyond the network, with v3's columns: the walk's counts are 0 and its
 * p-values empty; `pvalue` is the data-only combination of its layers' p-values (1 without one),
 * and the expression columns are read from the job as for any candidate.
 */
function offNetworkRow(
  input: ScoreTargetsV4Input,
  symbol: string,
  c: number,
  layers: LayersBeyondV3,
): TargetScoreRow {
  const finite = (v: number): number | null => (Number.isFinite(v) ? v : null);
  const tfB = finite(layers.tf_binding[c]!);
  const tfC = finite(layers.tf_coexpression[c]!);
  const kin = finite(layers.kinase[c]!);
  const ps = [tfB, tfC, kin, finite(layers.ppi[c]!)].filter((p): p is number => p !== null);
  const p = ps.length === 0 ? 1 : cauchy(ps, true);
  const expr = input.meanCp10kControl?.get(symbol);
  return {
    id: `${symbol}|PROTEIN`,
    node_type: "PROTEIN",
    score: 0,
    rank: 0,
    rank_percentage: 0,
    pvalue: p,
    z_score: null,
    is_deg: input.isDegSymbols.has(symbol),
    protein_expressed: expr === undefined ? null : expr >= input.minMeanExpression,
    n_degs_significant: 0,
    percentage_degs_significant: 0,
    k_expected: 0,
    n_universe_significant: 0,
    mean_log2_fold_degs: null,
    qvalue: 1,
    pvalue_method: "hypergeometric",
    pvalue_data: p,
    pvalue_propagated: null,
    pvalue_tf_binding: tfB,
    pvalue_tf_coexpression: tfC,
    pvalue_kinase: kin,
    n_layers: layers.tfLayers[c]! + layers.kinaseLayers[c]!,
    pvalue_direct: null,
    n_direct_targets: 0,
    n_direct_target_degs: 0,
    ulm_t: null,
    activation_z: null,
    pvalue_direction: null,
    activation_state: "undetermined",
    proxy_of: null,
    gene_measured: input.measuredGenes?.has(symbol) ?? null,
    pvalue_expressed: null,
  };
}

/** softmax(z / temperature). */
export function softmax(z: Float64Array, temperature: number): Float64Array {
  let mx = -Infinity;
  for (const v of z) if (v > mx) mx = v;
  const p = Float64Array.from(z, (v) => Math.exp((v - mx) / temperature));
  let sum = 0;
  for (const v of p) sum += v;
  for (let i = 0; i < p.length; i++) p[i] = p[i]! / sum;
  return p;
}

/**
 * Model v4 (runner/docs/model-v4.md): v3's evidence on its bundle and layers, with network
 * position, raw influence and the DE table's statistic, weighed by what the submitter did to the
 * cells; a calibrated probability and a 90 % prediction set per row.
 */
export const SCORING_V4: Scoring = {
  version: "v4",
  walk: SCORING_V3.walk,
  layerKinds: LAYER_KINDS,
  readsTableExpression: true,
  readsPerturbationType: true,
  score: scoreTargetsV4,
  settings: (model) => {
    const cands = v4Candidates(model);
    return {
      ...SCORING_V3.settings(model),
      // Every layer it reads, the PPI layers too (v3's settings list the libraries only).
      layers: model.layers.map((l) => ({ name: l.name, kind: l.kind })),
      candidates: { network: cands.nNetwork, beyond_network: cands.n - cands.nNetwork },
      v4: { temperature: V4_MODEL.temperature, features: V4_FEATURES.length },
    };
  },
};
