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
 * fewest top candidates whose probabilities reach the conformal threshold of the type (split
 * conformal, adaptive prediction sets, calibrated on held-out cases to hold the driver 90 % of the
 * time). `pvalue` stays v3's data-only p-value: neither the prior nor the fitted weights enter it.
 */
import { V4_EXTRA_COLUMNS } from "@causeway/contract";
import { benjaminiYekutieli } from "../../stats/multiple-testing.ts";
import type { ScoreTargetsResult, TargetScoreRow } from "../score-targets-v1.ts";
import type { Scoring } from "../scoring.ts";
import { rankTiers } from "../score-targets-v2.ts";
import { SCORING_V3, scoreTargetsV3, type ScoreTargetsV3Input } from "../score-targets-v3.ts";
import {
  N_V4_FEATURES,
  V4_CLASS_FEATURES,
  V4_FEATURES,
  listKindOf,
  listSizeOf,
  sourceClasses,
  v4Features,
  type ListKind,
  type PerturbationType,
  type V4Feature,
} from "./features.ts";
import { V4_MODEL, type V4Model } from "./weights.ts";

export interface ScoreTargetsV4Input extends ScoreTargetsV3Input {
  /** What the submitter did to the cells; absent → `unknown`. */
  perturbationType?: PerturbationType;
  v4?: V4Model;
}

/** The class features: what the prior (`prior`, `prior_logit`) is made of. */
const CLASS_FEATURES: ReadonlySet<V4Feature> = new Set(V4_CLASS_FEATURES);

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
  const x = v4Features(input, v3);
  const nS = model.nSources;
  const F = N_V4_FEATURES;
  const kind = listKindOf(input);
  const w = weightsFor(m, type, kind);
  const score = new Float64Array(nS);
  const priorLogit = new Float64Array(nS);
  for (let s = 0; s < nS; s++) {
    let v = 0;
    let pr = 0;
    for (let f = 0; f < F; f++) {
      const c = w[f]! * x[s * F + f]!;
      v += c;
      if (CLASS_FEATURES.has(V4_FEATURES[f]!)) pr += c;
    }
    score[s] = v;
    priorLogit[s] = pr;
  }
  const probability = softmax(score, m.temperature);
  const prior = softmax(priorLogit, 1);
  // The prediction set: the fewest most probable candidates whose mass reaches the threshold.
  const byProb = Array.from({ length: nS }, (_, i) => i).sort(
    (a, b) => probability[b]! - probability[a]! || a - b,
  );
  const inSet = new Uint8Array(nS);
  const rule = m.predictionSet[`${type}/${kind}/${listSizeOf(input.degs.length)}`];
  let mass = 0;
  let setSize = 0;
  for (const s of byProb) {
    if (rule.rule === "top" && setSize >= rule.value) break;
    inSet[s] = 1;
    setSize++;
    mass += probability[s]!;
    if (rule.rule === "aps" && mass >= rule.value) break;
  }

  const symbolOf = (id: string): string => id.slice(0, id.lastIndexOf("|"));
  const bySource: TargetScoreRow[] = new Array<TargetScoreRow>(nS);
  for (const r of v3.rows) bySource[model.sourceIndex(symbolOf(r.id))] = r;
  const { tiers } = rankTiers(
    input,
    { evidence: "propagated", combine: "cauchy", unmeasured: "in_place" },
    bySource,
    new Int32Array(nS).fill(-1),
  );
  const ids = model.sourceSymbols;
  const pData = Float64Array.from({ length: nS }, (_, s) => bySource[s]!.pvalue);
  const order = Array.from({ length: nS }, (_, i) => i).sort(
    (a, b) =>
      tiers[a]! - tiers[b]! ||
      score[b]! - score[a]! ||
      pData[a]! - pData[b]! ||
      (ids[a]! < ids[b]! ? -1 : ids[a]! > ids[b]! ? 1 : 0),
  );
  const q = benjaminiYekutieli(pData);
  const cls = sourceClasses(model);
  const cRaw = V4_FEATURES.indexOf("raw_influence");
  const cUlmT = V4_FEATURES.indexOf("ulm_table");
  const rows: TargetScoreRow[] = order.map((s, rank) => {
    const r = bySource[s]!;
    return {
      ...r,
      score: score[s]!,
      rank,
      rank_percentage: nS > 1 ? rank / (nS - 1) : 0,
      qvalue: q[s]!,
      probability: probability[s]!,
      in_prediction_set: inSet[s] === 1,
      prediction_set_size: setSize,
      perturbation_type: type,
      list_kind: kind,
      candidate_class: classOf(cls, s),
      candidate_source: "network",
      raw_influence_z: x[s * F + cRaw]!,
      ulm_table_t: x[s * F + cUlmT]! > 0 ? x[s * F + cUlmT]! : null,
      prior: prior[s]!,
      prior_logit: priorLogit[s]!,
    };
  });

  // v3's rows are in v3's order: the influence matrix and the null follow v4's.
  const v3RowOf = new Int32Array(nS);
  v3.rows.forEach((r, i) => (v3RowOf[model.sourceIndex(symbolOf(r.id))] = i));
  const cols = v3.sourceInfluence.columnIds.length;
  const data = new Float32Array(nS * cols);
  order.forEach((s, i) =>
    data.set(v3.sourceInfluence.data.subarray(v3RowOf[s]! * cols, (v3RowOf[s]! + 1) * cols), i * cols),
  );
  const result: ScoreTargetsResult = {
    ...v3,
    rows,
    sourceInfluence: { rowIds: rows.map((r) => r.id), columnIds: v3.sourceInfluence.columnIds, data },
    extraColumns: V4_EXTRA_COLUMNS,
  };
  if (v3.randomizationNull) {
    const nulls = v3.randomizationNull;
    result.randomizationNull = order.map((s) => nulls[v3RowOf[s]!]!);
  }
  return result;
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
  readsLayers: true,
  readsTableExpression: true,
  readsPerturbationType: true,
  score: scoreTargetsV4,
  settings: (model) => ({
    ...SCORING_V3.settings(model),
    v4: { temperature: V4_MODEL.temperature, features: V4_FEATURES.length },
  }),
};
