/**
 * `node runner/validation/src/fit-v4.ts [--features DIR] [--folds K] [--spec NAME] [--write]`: how model
 * v4's weights, temperature and conformal thresholds were chosen (runner/docs/model-v4.md).
 *
 * Reads the feature cache of features-v4.ts (both development sets), fits a conditional logit
 * (one softmax over the candidates per case, the expected target the chosen one, L2-penalized)
 * whose weights are shared plus a per-perturbation-type deviation on the class features, judged
 * by K-fold cross-validation grouped by `split_group`. Reports held-out figures per source
 * (median q, ligands by q*, top 5 %, per-target AUROC) beside v3, the temperature and calibration
 * (ECE) of the held-out probabilities, and the empirical coverage and median size of split-
 * conformal 90 % sets, Mondrian per calibration group with every split group weighing the same,
 * each fold's thresholds taken from the other folds. Prints the constants v4 ships (fitted on all
 * cases); `--write` writes them to runner/src/scoring/v4/v4-model.json. Benchmark code only.
 */
import { readFileSync, writeFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { join, resolve } from "node:path";
import { parseArgs } from "node:util";
import {
  LIST_KINDS,
  PERTURBATION_TYPES,
  V4_CLASS_FEATURES,
  V4_FEATURES,
  deriveFeatures,
  hasLayerEvidence,
  listSizeOf,
  LIST_SIZES,
  SCORINGS,
  type ListKind,
  type V4Feature,
  V4_MODEL_PATH,
  V4ModelSchema,
  MIN_GROUP_CASES,
} from "@causeway/runner/scoring";
import { sharedData } from "../../../test/shared-data.ts";
import type { Model } from "@causeway/runner/model";
import { defaultNetworkContext } from "./context.ts";
import { existsSync } from "node:fs";
import type { CaseRecord } from "./benchmark.ts";
import { DEFAULT_FEATURE_CACHE, type FeatureIndex, type FeatureCase } from "./features-v4.ts";
import { conformalTau } from "./conformal.ts";
import { median } from "./metrics.ts";
import { perTargetAuroc } from "./summary.ts";

const F = V4_FEATURES.length;
const T = PERTURBATION_TYPES.length;
const col = (f: V4Feature): number => V4_FEATURES.indexOf(f);

interface Spec {
  shared: readonly V4Feature[];
  byType: readonly V4Feature[];
  byKind: readonly V4Feature[];
  /** Deviations per (perturbation type, list kind) group. */
  byGroup?: readonly V4Feature[];
  ridgeShared: number;
  ridgeType: number;
  /** The ridge of the (type, kind) deviations; absent: ridgeType. */
  ridgeGroup?: number;
}

const EVIDENCE: V4Feature[] = [
  "propagated",
  "tf_binding",
  "tf_coexpression",
  "kinase",
  "ulm",
  "direct",
  "raw_influence",
  "ulm_table",
  "has_table",
];
const CLASS: V4Feature[] = [...V4_CLASS_FEATURES];

export const SPECS: Record<string, Spec> = {
  "v3-like (shared, no class)": {
    shared: [
      "log_out_degree",
      "tf_layers",
      "kinase_layers",
      "propagated",
      "tf_binding",
      "tf_coexpression",
      "kinase",
      "ulm",
    ],
    byType: [],
    byKind: [],
    ridgeShared: 1,
    ridgeType: 1,
  },
  "all shared": { shared: [...EVIDENCE, ...CLASS], byType: [], byKind: [], ridgeShared: 1, ridgeType: 1 },
  "shared + class by type": {
    shared: [...EVIDENCE, ...CLASS],
    byType: [...CLASS, "raw_influence", "ulm_table", "propagated"],
    byKind: [],
    ridgeShared: 1,
    ridgeType: 10,
  },
  "shared + class and evidence by type": {
    shared: [...EVIDENCE, ...CLASS],
    byType: [...CLASS, ...EVIDENCE],
    byKind: [],
    ridgeShared: 1,
    ridgeType: 10,
  },
  "v4a: + layer ranks + downstream TF evidence": {
    shared: [...EVIDENCE, "layer_rank", "layer_top", "downstream_tf", ...CLASS],
    byType: [...CLASS, "raw_influence", "ulm_table", "propagated", "downstream_tf"],
    byKind: [],
    ridgeShared: 1,
    ridgeType: 10,
  },
  "v4b: v4a + raw influence and propagated per (type, kind)": {
    shared: [...EVIDENCE, "layer_rank", "layer_top", "downstream_tf", ...CLASS],
    byType: [...CLASS, "raw_influence", "ulm_table", "propagated", "downstream_tf"],
    byKind: [],
    byGroup: ["raw_influence", "propagated"],
    ridgeShared: 1,
    ridgeType: 10,
  },
  "v4d: v4c + propagated evidence of non-TFs": {
    shared: [...EVIDENCE, "layer_rank", "layer_top", "downstream_tf", "propagated_signaling", ...CLASS],
    byType: [...CLASS, "raw_influence", "ulm_table", "propagated", "downstream_tf", "propagated_signaling"],
    byKind: [],
    byGroup: [
      "raw_influence",
      "propagated",
      "log_out_degree",
      "is_tf",
      "steps_1",
      "below_apex",
      "layer_rank",
    ],
    ridgeShared: 1,
    ridgeType: 10,
  },
  "v4c: v4a + evidence and class per (type, kind)": {
    shared: [...EVIDENCE, "layer_rank", "layer_top", "downstream_tf", ...CLASS],
    byType: [...CLASS, "raw_influence", "ulm_table", "propagated", "downstream_tf"],
    byKind: [],
    byGroup: [
      "raw_influence",
      "propagated",
      "log_out_degree",
      "is_tf",
      "steps_1",
      "below_apex",
      "layer_rank",
    ],
    ridgeShared: 1,
    ridgeType: 10,
  },
  "v4: shared + class by type + evidence by kind + group": {
    shared: [...EVIDENCE, "layer_rank", "layer_top", ...CLASS],
    byType: [...CLASS, "raw_influence", "ulm_table", "propagated", "layer_rank"],
    byKind: [
      "propagated",
      "tf_binding",
      "tf_coexpression",
      "kinase",
      "ulm",
      "direct",
      "raw_influence",
      "layer_rank",
    ],
    byGroup: ["raw_influence", "propagated", "log_out_degree", "is_tf", "layer_rank"],
    ridgeShared: 1,
    ridgeType: 10,
  },
  "shared + class by type + evidence by list kind": {
    shared: [...EVIDENCE, ...CLASS],
    byType: [...CLASS, "raw_influence", "ulm_table", "propagated"],
    byKind: ["propagated", "tf_binding", "tf_coexpression", "kinase", "ulm", "direct", "raw_influence"],
    ridgeShared: 1,
    ridgeType: 10,
  },
};

const V4D = SPECS["v4d: v4c + propagated evidence of non-TFs"]!;
const V4E: Spec = {
  ...V4D,
  shared: [...V4D.shared, "ppi"],
  byType: [...V4D.byType, "ppi"],
  byGroup: [...(V4D.byGroup ?? []), "off_network"],
};
SPECS["v4e: v4d + the candidates beyond the network (PPI evidence, off-network class per group)"] = V4E;
SPECS["v4f: v4e without the off-network deviation per (type, kind)"] = {
  ...V4E,
  byGroup: (V4E.byGroup ?? []).filter((f) => f !== "off_network"),
};
SPECS["v4g: v4e with one off-network prior for every experiment (no deviation per type or group)"] = {
  ...V4E,
  byType: V4E.byType.filter((f) => f !== "off_network"),
  byGroup: (V4E.byGroup ?? []).filter((f) => f !== "off_network"),
};
SPECS["v4h: v4e with lighter ridge (3) on the deviations per type and group"] = {
  ...V4E,
  ridgeType: 3,
};

SPECS["v4i: v4e with ridge 5 on the deviations per type and group"] = {
  ...V4E,
  ridgeType: 5,
};
/** The TF and kinase activity evidence: a regulator's own signal, which means different things per experiment. */
const ACTIVITY: V4Feature[] = ["ulm", "tf_binding", "tf_coexpression", "kinase", "layer_top", "ulm_table"];
const V4M: Spec = { ...V4E, byGroup: [...(V4E.byGroup ?? []), ...ACTIVITY] };
SPECS["v4m: v4e + the layer and ULM evidence per (type, kind)"] = V4M;
const V4N: Spec = { ...V4M, ridgeGroup: 3 };
SPECS["v4n: v4m with ridge 3 on the (type, kind) deviations"] = V4N;
SPECS["v4p: v4n + downstream and signalling evidence per (type, kind)"] = {
  ...V4N,
  byGroup: [...(V4N.byGroup ?? []), "downstream_tf", "propagated_signaling", "direct"],
};

interface Data {
  index: FeatureIndex;
  x: Float32Array;
  /** Candidates per case (v4's: the network's sources, then the layers' other proteins). */
  nS: number;
  /** How many of them are network sources: q is on their scale. */
  nNetwork: number;
  stride: number;
  typeOf: Int32Array;
  kindOf: Int32Array;
  /** Candidate indices of each case's accepted targets (the expected one first when it is a candidate). */
  accepted: Int32Array[];
}

function load(dir: string, model: Model): Data {
  const index = JSON.parse(readFileSync(join(dir, "index.json"), "utf8")) as FeatureIndex;
  const buf = readFileSync(join(dir, "features.f32"));
  const cached = new Float32Array(buf.length / 4);
  new Uint8Array(cached.buffer).set(buf);
  const nS = index.candidates.length;
  // The cache may predate features derived from cached columns (layerRanks): copy by name, derive the rest.
  const Fc = index.features.length;
  const nCases = index.cases.length;
  const x = new Float32Array(nCases * nS * (F + 1));
  const from = V4_FEATURES.map((f) => index.features.indexOf(f));
  const one = new Float64Array(nS * F);
  for (let k = 0; k < nCases; k++) {
    const src = k * nS * (Fc + 1);
    one.fill(0);
    for (let s = 0; s < nS; s++)
      for (let f = 0; f < F; f++) if (from[f]! >= 0) one[s * F + f] = cached[src + s * Fc + from[f]!]!;
    deriveFeatures(model, one);
    const dst = k * nS * (F + 1);
    x.set(one, dst);
    x.set(cached.subarray(src + nS * Fc, src + nS * (Fc + 1)), dst + nS * F);
  }
  const typeOf = Int32Array.from(index.cases, (c) =>
    PERTURBATION_TYPES.indexOf(c.perturbationType as (typeof PERTURBATION_TYPES)[number]),
  );
  const candIndex = new Map(index.candidates.map((c, i) => [c, i]));
  // The list kind as listKindOf reads a job: a table, a list signed both ways, or neither.
  const cHas = col("has_table");
  index.cases.forEach((c, k) => {
    let table = false;
    for (let s = 0; s < nS && !table; s++) table = x[k * nS * (F + 1) + s * F + cHas] === 1;
    let up = false;
    let down = false;
    for (const dir of [sharedData("known_answers_v2"), sharedData("known_answers_v3")]) {
      const p = join(dir, c.id, "degs_signed.json");
      if (!existsSync(p)) continue;
      const j = JSON.parse(readFileSync(p, "utf8")) as { up: string[]; down: string[] };
      up = j.up.some((g) => g !== c.expected);
      down = j.down.some((g) => g !== c.expected);
    }
    c.listKind = table ? "table" : up && down ? "signed" : up || down ? "one_sided" : "unsigned";
  });
  const accepted = index.cases.map((c) =>
    Int32Array.from(
      new Set([c.expected, ...c.accepted].map((a) => candIndex.get(a) ?? -1).filter((i) => i >= 0)),
    ),
  );
  const kindOf = Int32Array.from(index.cases, (c) => LIST_KINDS.indexOf(c.listKind as ListKind));
  return { index, x, nS, nNetwork: index.nNetwork ?? nS, stride: nS * (F + 1), typeOf, kindOf, accepted };
}

/**
 * Parameter layout: the shared columns, one block of byType columns per perturbation type, then
 * one block of byKind columns per list kind.
 */
function layout(spec: Spec): {
  P: number;
  effCols: (t: number, kd: number) => { param: number[]; feat: number[] };
} {
  const S = spec.shared.length;
  const B = spec.byType.length;
  const KB = spec.byKind.length;
  const GB = spec.byGroup?.length ?? 0;
  const NK = LIST_KINDS.length;
  const sharedFeat = spec.shared.map(col);
  const typeFeat = spec.byType.map(col);
  const kindFeat = spec.byKind.map(col);
  const groupFeat = (spec.byGroup ?? []).map(col);
  return {
    P: S + T * B + NK * KB + T * NK * GB,
    effCols: (t, kd) => ({
      param: [
        ...sharedFeat.map((_, i) => i),
        ...typeFeat.map((_, i) => S + t * B + i),
        ...kindFeat.map((_, i) => S + T * B + kd * KB + i),
        ...groupFeat.map((_, i) => S + T * B + NK * KB + (t * NK + kd) * GB + i),
      ],
      feat: [...sharedFeat, ...typeFeat, ...kindFeat, ...groupFeat],
    }),
  };
}

/** Scores (log-odds up to a per-case constant) of every candidate of case k. */
function scoresOf(d: Data, k: number, spec: Spec, w: Float64Array): Float64Array {
  const { param, feat } = layout(spec).effCols(d.typeOf[k]!, d.kindOf[k]!);
  const E = param.length;
  const we = param.map((p) => w[p]!);
  const out = new Float64Array(d.nS);
  const base = k * d.stride;
  for (let s = 0; s < d.nS; s++) {
    const o = base + s * F;
    let v = 0;
    for (let e = 0; e < E; e++) v += we[e]! * d.x[o + feat[e]!]!;
    out[s] = v;
  }
  return out;
}

function fit(d: Data, cases: readonly number[], spec: Spec, start?: Float64Array): Float64Array {
  const { P, effCols } = layout(spec);
  const S = spec.shared.length;
  const groupFrom = S + T * spec.byType.length + LIST_KINDS.length * spec.byKind.length;
  const ridge = Float64Array.from({ length: P }, (_, p) =>
    p < S ? spec.ridgeShared : p < groupFrom ? spec.ridgeType : (spec.ridgeGroup ?? spec.ridgeType),
  );
  // The likelihood of a case is the probability of its accepted set (a ligand or its receptors).
  const terms = (w: Float64Array) => {
    let ll = 0;
    const g = new Float64Array(P);
    const H = new Float64Array(P * P);
    for (const k of cases) {
      const acc = d.accepted[k]!;
      if (acc.length === 0) continue;
      const { param, feat } = effCols(d.typeOf[k]!, d.kindOf[k]!);
      const E = param.length;
      const z = scoresOf(d, k, spec, w);
      let mx = -Infinity;
      for (const v of z) if (v > mx) mx = v;
      let Z = 0;
      for (let s = 0; s < d.nS; s++) Z += z[s] = Math.exp(z[s]! - mx);
      let ZA = 0;
      for (const a of acc) ZA += z[a]!;
      ll += Math.log(ZA / Z);
      const base = k * d.stride;
      // grad = E_{p|A}[x] − E_p[x]; Hessian = Cov_{p|A}(x) − Cov_p(x).
      // Most features of most candidates are 0 (class indicators, layers that do not hold them,
      // every walk feature of a protein beyond the network): the products run over the others.
      const moments = (idx: Iterable<number>, norm: number) => {
        const mu = new Float64Array(E);
        const s2 = new Float64Array(E * E);
        const nz = new Int32Array(E);
        const xs = new Float64Array(E);
        for (const s of idx) {
          const p = z[s]! / norm;
          if (p < 1e-9) continue;
          const o = base + s * F;
          let m = 0;
          for (let a = 0; a < E; a++) {
            const v = d.x[o + feat[a]!]!;
            if (v !== 0) {
              nz[m] = a;
              xs[m++] = v;
            }
          }
          for (let i = 0; i < m; i++) {
            const a = nz[i]!;
            const pa = p * xs[i]!;
            mu[a] = mu[a]! + pa;
            // nz is increasing, so b ≤ a for j ≤ i: the lower triangle, as before.
            for (let j = 0; j <= i; j++) s2[a * E + nz[j]!] = s2[a * E + nz[j]!]! + pa * xs[j]!;
          }
        }
        return { mu, s2 };
      };
      const all = moments(
        (function* () {
          for (let s = 0; s < d.nS; s++) yield s;
        })(),
        Z,
      );
      const inA = moments(acc, ZA);
      for (let a = 0; a < E; a++) {
        const pa = param[a]!;
        g[pa] = g[pa]! + inA.mu[a]! - all.mu[a]!;
        for (let b = 0; b <= a; b++) {
          const pb = param[b]!;
          // The negative Hessian of the log-likelihood, kept positive semi-definite: Cov_p only
          // (the Cov_{p|A} term is zero for one accepted target and small otherwise).
          const h = all.s2[a * E + b]! - all.mu[a]! * all.mu[b]!;
          H[pa * P + pb] = H[pa * P + pb]! + h;
          if (pa !== pb) H[pb * P + pa] = H[pb * P + pa]! + h;
        }
      }
    }
    for (let a = 0; a < P; a++) {
      ll -= 0.5 * ridge[a]! * w[a]! * w[a]!;
      g[a] = g[a]! - ridge[a]! * w[a]!;
      H[a * P + a] = H[a * P + a]! + ridge[a]!;
    }
    return { ll, g, H };
  };
  let w = start ? Float64Array.from(start) : new Float64Array(P);
  let cur = terms(w);
  for (let it = 0; it < 30; it++) {
    const dir = solve(cur.H, cur.g);
    let step = 1;
    let next = cur;
    let wNext = w;
    for (let k = 0; k < 20; k++, step /= 2) {
      wNext = Float64Array.from(w, (v, a) => v + step * dir[a]!);
      next = terms(wNext);
      if (next.ll >= cur.ll) break;
    }
    if (!(next.ll >= cur.ll)) break;
    const gain = next.ll - cur.ll;
    w = wNext;
    cur = next;
    process.stderr.write(`\r  Newton step ${it + 1}: log-likelihood ${cur.ll.toFixed(2)}   `);
    if (gain < 1e-4) break;
  }
  return w;
}

function solve(H: Float64Array, g: Float64Array): Float64Array {
  const n = g.length;
  const m = Array.from({ length: n }, (_, i) => [...H.subarray(i * n, i * n + n), g[i]!]);
  for (let i = 0; i < n; i++) {
    let p = i;
    for (let r = i + 1; r < n; r++) if (Math.abs(m[r]![i]!) > Math.abs(m[p]![i]!)) p = r;
    [m[i], m[p]] = [m[p]!, m[i]!];
    for (let r = 0; r < n; r++) {
      if (r === i || m[i]![i] === 0) continue;
      const f = m[r]![i]! / m[i]![i]!;
      for (let k = i; k <= n; k++) m[r]![k] = m[r]![k]! - f * m[i]![k]!;
    }
  }
  return Float64Array.from({ length: n }, (_, i) => (m[i]![i] === 0 ? 0 : m[i]![n]! / m[i]![i]!));
}

function foldsOf(cases: readonly FeatureCase[], k: number): number[] {
  const hash = (s: string): number => {
    let x = 2166136261;
    for (const ch of s) x = Math.imul(x ^ ch.charCodeAt(0), 16777619) >>> 0;
    return x;
  };
  return cases.map((c) => hash(c.group) % k);
}

/** Mid-rank (0-based) of each candidate under scores, higher first. */
function midRanks(z: Float64Array): Float64Array {
  const n = z.length;
  const order = Array.from({ length: n }, (_, i) => i).sort((a, b) => z[b]! - z[a]!);
  const out = new Float64Array(n);
  for (let i = 0; i < n;) {
    let j = i;
    while (j + 1 < n && z[order[j + 1]!] === z[order[i]!]) j++;
    for (let x = i; x <= j; x++) out[order[x]!] = (i + j) / 2;
    i = j + 1;
  }
  return out;
}

/** Per held-out case: what the report needs. */
interface Outcome {
  k: number;
  q: number | null;
  qStar: number | null;
  qTargets: Record<string, number>;
  /** Logits of the candidates (for the temperature and the sets). */
  z: Float64Array;
}

function outcome(
  d: Data,
  k: number,
  z: Float64Array,
  targets: readonly string[],
  candIndex: Map<string, number>,
  /** Candidates the method ranks (v3: the network's sources; the others are not ranked). */
  ranked = d.nS,
): Outcome {
  const c = d.index.cases[k]!;
  const r = midRanks(tiered(d, k, z));
  // On the network's scale, as validate's qScale: the candidates beyond it cost when ranked above.
  const q = (rank: number): number => Math.min(1, rank / (d.nNetwork - 1));
  const qTargets: Record<string, number> = {};
  for (const t of targets) {
    const s = candIndex.get(t);
    if (s !== undefined && s < ranked) qTargets[t] = q(r[s]!);
  }
  let qStar: number | null = null;
  for (const a of c.accepted) {
    const s = candIndex.get(a);
    if (s !== undefined && s < ranked) qStar = Math.min(qStar ?? 1, q(r[s]!));
  }
  return { k, q: c.target >= 0 && c.target < ranked ? q(r[c.target]!) : null, qStar, qTargets, z };
}

/** The scores as the table orders them (score-targets-v4.ts): a protein beyond the network without layer evidence comes after the network's. */
function tiered(d: Data, k: number, z: Float64Array): Float64Array {
  const out = Float64Array.from(z);
  for (let s = d.nNetwork; s < d.nS; s++) if (!hasLayerEvidence(d.x, s, k * d.stride)) out[s] = z[s]! - 1e6;
  return out;
}

/** Probabilities softmax(z / temp). */
function softmax(z: Float64Array, temp: number): Float64Array {
  let mx = -Infinity;
  for (const v of z) if (v > mx) mx = v;
  const p = Float64Array.from(z, (v) => Math.exp((v - mx) / temp));
  let Z = 0;
  for (const v of p) Z += v;
  for (let i = 0; i < p.length; i++) p[i] = p[i]! / Z;
  return p;
}

/** APS score: the probability mass of the candidates ranked at or above the first accepted target. */
function apsScore(p: Float64Array, acc: Int32Array): number {
  let pt = 0;
  for (const a of acc) pt = Math.max(pt, p[a]!);
  let m = 0;
  for (const v of p) if (v > pt) m += v;
  return m + pt;
}

/** Size of the APS set at threshold tau: the fewest top candidates whose mass reaches tau. */
function apsSize(p: Float64Array, tau: number): number {
  const sorted = Float64Array.from(p).sort().reverse();
  let m = 0;
  for (let i = 0; i < sorted.length; i++) {
    m += sorted[i]!;
    if (m >= tau) return i + 1;
  }
  return sorted.length;
}

function fitTemperature(outs: readonly Outcome[], d: Data): number {
  const nll = (temp: number): number => {
    let v = 0;
    for (const o of outs) {
      const p = softmax(o.z, temp);
      let m = 0;
      for (const a of d.accepted[o.k]!) m += p[a]!;
      v -= Math.log(Math.max(1e-300, m));
    }
    return v;
  };
  let lo = 0.3;
  let hi = 3;
  for (let it = 0; it < 25; it++) {
    const a = lo + (hi - lo) / 3;
    const b = hi - (hi - lo) / 3;
    if (nll(a) < nll(b)) hi = b;
    else lo = a;
  }
  return (lo + hi) / 2;
}

/** Top-label ECE (10 equal-width bins of the top candidate's probability) and the all-rows ECE. */
function ece(outs: readonly Outcome[], d: Data, temp: number): { top: number; rows: number } {
  const B = 10;
  const topConf = new Float64Array(B);
  const topAcc = new Float64Array(B);
  const topN = new Float64Array(B);
  const rConf = new Float64Array(B);
  const rAcc = new Float64Array(B);
  const rN = new Float64Array(B);
  for (const o of outs) {
    const acc = new Set(d.accepted[o.k]!);
    const p = softmax(o.z, temp);
    let best = 0;
    for (let s = 1; s < p.length; s++) if (p[s]! > p[best]!) best = s;
    const b = Math.min(B - 1, Math.floor(p[best]! * B));
    topConf[b] = topConf[b]! + p[best]!;
    topAcc[b] = topAcc[b]! + (acc.has(best) ? 1 : 0);
    topN[b]!++;
    for (let s = 0; s < p.length; s++) {
      const bb = Math.min(B - 1, Math.floor(p[s]! * B));
      rConf[bb] = rConf[bb]! + p[s]!;
      rAcc[bb] = rAcc[bb]! + (acc.has(s) ? 1 : 0);
      rN[bb]!++;
    }
  }
  const e = (conf: Float64Array, acc: Float64Array, n: Float64Array): number => {
    const tot = n.reduce((a, b) => a + b, 0);
    let v = 0;
    for (let b = 0; b < B; b++) if (n[b]! > 0) v += Math.abs(conf[b]! - acc[b]!) / tot;
    return v;
  };
  return { top: e(topConf, topAcc, topN), rows: e(rConf, rAcc, rN) };
}

/** Top-label ECE of given probabilities. */
function eceWith(outs: readonly Outcome[], d: Data, probs: Map<number, Float64Array>): number {
  const B = 10;
  const conf = new Float64Array(B);
  const hit = new Float64Array(B);
  for (const o of outs) {
    const p = probs.get(o.k)!;
    let best = 0;
    for (let s = 1; s < p.length; s++) if (p[s]! > p[best]!) best = s;
    const b = Math.min(B - 1, Math.floor(p[best]! * B));
    conf[b] = conf[b]! + p[best]!;
    hit[b] = hit[b]! + (d.accepted[o.k]!.includes(best) ? 1 : 0);
  }
  let v = 0;
  for (let b = 0; b < B; b++) v += Math.abs(conf[b]! - hit[b]!);
  return outs.length ? v / outs.length : NaN;
}

/** A case's calibration group: perturbation type, list kind, list size. */
const groupOf = (d: Data, k: number): string =>
  `${PERTURBATION_TYPES[d.typeOf[k]!]}/${LIST_KINDS[d.kindOf[k]!]}/${listSizeOf(d.index.cases[k]!.nDegs)}`;

/**
 * A group's 90 % set rule: `aps` (the fewest most probable candidates whose mass reaches the
 * threshold: adaptive, small when the model is sure) or `top` (a fixed number of the most
 * probable: robust when the probabilities of the group are poorly calibrated). Each is the
 * split-conformal quantile of its own score on the calibration cases; the rule with the
 * smaller median set on those cases is taken.
 */
export type SetRule = { rule: "aps"; value: number } | { rule: "top"; value: number };

/** 1-based rank, in probability order, of a case's first accepted target. */
function firstAcceptedRank(p: Float64Array, acc: Int32Array): number {
  let pt = 0;
  for (const a of acc) pt = Math.max(pt, p[a]!);
  let r = 1;
  for (const v of p) if (v > pt) r++;
  return r;
}

function setSize(p: Float64Array, rule: SetRule): number {
  return rule.rule === "aps" ? apsSize(p, rule.value) : Math.min(p.length, rule.value);
}

/**
 * The set rule of every (perturbation type, list kind, list size) group from calibration
 * outcomes: from the group's own cases when it has MIN_GROUP, else its (type, kind)'s, else its
 * type's, else all cases'.
 */
function thresholds(
  cal: readonly Outcome[],
  d: Data,
  probs: Map<number, Float64Array>,
): Map<string, SetRule> {
  const ruleOf = (os: readonly Outcome[]): SetRule => {
    const groups = os.map((o) => d.index.cases[o.k]!.group);
    const tau = conformalTau(
      os.map((o) => apsScore(probs.get(o.k)!, d.accepted[o.k]!)),
      groups,
      0.1,
    );
    const ranks = os.map((o) => firstAcceptedRank(probs.get(o.k)!, d.accepted[o.k]!) / d.nS);
    const k = Math.ceil(conformalTau(ranks, groups, 0.1) * d.nS);
    const apsMedian = median(os.map((o) => apsSize(probs.get(o.k)!, tau)));
    return k < apsMedian ? { rule: "top", value: k } : { rule: "aps", value: tau };
  };
  const pick = (os: readonly Outcome[], fallback: SetRule): SetRule =>
    os.length < MIN_GROUP_CASES ? fallback : ruleOf(os);
  const all = ruleOf(cal);
  const out = new Map<string, SetRule>();
  PERTURBATION_TYPES.forEach((t, ti) => {
    const ofType = cal.filter((o) => d.typeOf[o.k] === ti);
    const typeRule = pick(ofType, all);
    LIST_KINDS.forEach((kind, ki) => {
      const ofKind = ofType.filter((o) => d.kindOf[o.k] === ki);
      const kindRule = pick(ofKind, typeRule);
      for (const size of LIST_SIZES)
        out.set(
          `${t}/${kind}/${size}`,
          pick(
            ofKind.filter((o) => listSizeOf(d.index.cases[o.k]!.nDegs) === size),
            kindRule,
          ),
        );
    });
  });
  return out;
}

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: {
      features: { type: "string" },
      folds: { type: "string" },
      spec: { type: "string", multiple: true },
      write: { type: "boolean" },
    },
  });
  const write = values.write === true;
  const ctx = await defaultNetworkContext();
  const model = await ctx.bundle(SCORINGS.v4.walk);
  const d = load(resolve(values.features ?? DEFAULT_FEATURE_CACHE), model);
  if (model.sourceSymbols.some((c, i) => d.index.candidates[i] !== c))
    throw new Error("the feature cache was made with another network");
  const K = Number(values.folds ?? 5);
  const cases = d.index.cases;
  const folds = foldsOf(cases, K);
  const candIndex = new Map(d.index.candidates.map((s, i) => [s, i]));
  const targets = [...new Set(cases.map((c) => c.expected))].sort();
  const sources = [...new Set(cases.map((c) => c.source))].sort();
  const all = cases.map((_, i) => i);
  const specNames = values.spec ?? Object.keys(SPECS);

  const summarize = (outs: readonly Outcome[]): string => {
    const rows = [
      "| source | cases | ranked at all | on the network (the goal's cases) | median q (q* ligands) | top 5 % | per-target AUROC | every ranked case: median q / top 5 % |",
      "|---|---|---|---|---|---|---|---|",
    ];
    const groups: [string, (c: FeatureCase) => boolean][] = [
      [
        "known_answers_v2 (all)",
        (c) => ["chea3_tf", "kea3_geo", "kea3_l1000", "metadegth"].includes(c.source),
      ],
      [
        "known_answers_v3 (all)",
        (c) => !["chea3_tf", "kea3_geo", "kea3_l1000", "metadegth"].includes(c.source),
      ],
      ...sources.map((s): [string, (c: FeatureCase) => boolean] => [s, (c) => c.source === s]),
    ];
    for (const [name, pred] of groups) {
      const mine = outs.filter((o) => pred(cases[o.k]!));
      const rankedAtAll = mine.filter((o) => o.q !== null).length;
      // The goal's figures: the cases whose protein is one of the network's candidates.
      const onNetwork = mine.filter((o) => {
        const t = cases[o.k]!.target;
        return t >= 0 && t < d.nNetwork;
      });
      const qs = onNetwork.flatMap((o) => {
        const v = cases[o.k]!.source === "lincs_ligand" ? o.qStar : o.q;
        return v === null ? [] : [v];
      });
      const records: CaseRecord[] = onNetwork.map((o) => ({
        id: cases[o.k]!.id,
        source: cases[o.k]!.source,
        method: "m",
        q: o.q,
        rank: null,
        n_candidates: d.nS,
        q_targets: o.qTargets,
        q_star: o.qStar,
      }));
      const truth = new Map(onNetwork.map((o) => [cases[o.k]!.id, cases[o.k]!]));
      const { auroc } = perTargetAuroc(records, truth);
      const top5 = (xs: readonly number[]): string =>
        `${((100 * xs.filter((q) => q <= 0.05).length) / xs.length).toFixed(1)} %`;
      // Every case whose protein the method ranks, the ones beyond the network included.
      const qsAll = mine.flatMap((o) => {
        const v = cases[o.k]!.source === "lincs_ligand" ? o.qStar : o.q;
        return v === null ? [] : [v];
      });
      rows.push(
        `| ${name} | ${mine.length} | ${((100 * rankedAtAll) / mine.length).toFixed(1)} % | ${qs.length} | ${median(qs).toFixed(3)} | ${top5(qs)} | ${auroc.toFixed(3)} | ${median(qsAll).toFixed(3)} / ${top5(qsAll)} |`,
      );
    }
    return rows.join("\n");
  };

  // v3 as shipped, from its scores in the cache (its weights were fitted on known_answers_v2 only).
  console.log("## v3 (shipped weights; in-sample on known_answers_v2)\n");
  console.log(
    summarize(
      all.map((k) =>
        outcome(
          d,
          k,
          // v3 ranks the network's sources only (the others are NaN in the cache).
          Float64Array.from(d.x.subarray(k * d.stride + d.nS * F, (k + 1) * d.stride), (v) =>
            Number.isNaN(v) ? -Infinity : v,
          ),
          targets,
          candIndex,
          d.nNetwork,
        ),
      ),
    ),
  );

  for (const name of specNames) {
    const spec = SPECS[name]!;
    const t0 = performance.now();
    const wAll = fit(d, all, spec);
    const outs: Outcome[] = [];
    for (let f = 0; f < K; f++) {
      const train = all.filter((k) => folds[k] !== f);
      const w = fit(d, train, spec, wAll);
      for (const k of all)
        if (folds[k] === f) outs.push(outcome(d, k, scoresOf(d, k, spec, w), targets, candIndex));
    }
    console.log(
      `\n## ${name}: ${K}-fold CV grouped by split_group (${((performance.now() - t0) / 1000).toFixed(0)} s)\n`,
    );
    console.log(summarize(outs));

    // Calibration and conformal sets on the held-out logits of the cases with an accepted
    // candidate; each fold's temperature and thresholds come from the other folds only.
    const ranked = outs.filter((o) => d.accepted[o.k]!.length > 0);
    const temp = fitTemperature(ranked, d);
    const e1 = ece(ranked, d, 1);
    const eT = ece(ranked, d, temp);
    const covered = new Map<number, { cov: boolean; size: number }>();
    const nested: Outcome[] = [];
    const probsNested = new Map<number, Float64Array>();
    for (let f = 0; f < K; f++) {
      const cal = ranked.filter((o) => folds[o.k] !== f);
      const tf = fitTemperature(cal, d);
      const probs = new Map(cal.map((o) => [o.k, softmax(o.z, tf)]));
      const taus = thresholds(cal, d, probs);
      for (const o of ranked) {
        if (folds[o.k] !== f) continue;
        const p = softmax(o.z, tf);
        probsNested.set(o.k, p);
        nested.push(o);
        const size = setSize(p, taus.get(groupOf(d, o.k))!);
        let pt = 0;
        for (const a of d.accepted[o.k]!) pt = Math.max(pt, p[a]!);
        let rank = 0;
        for (const v of p) if (v > pt) rank++;
        covered.set(o.k, { cov: rank < size, size });
      }
    }
    const eN = ece(nested, d, 1);
    console.log(
      `\ntemperature ${temp.toFixed(3)}; held-out ECE top-label ${e1.top.toFixed(3)} (T = 1) → ${eT.top.toFixed(3)} (T fitted on all folds), all rows ${eT.rows.toFixed(4)}`,
    );
    void eN;
    console.log(
      "\n| source | ranked | 90 % set coverage | median set size | ECE top-label (nested T) |\n|---|---|---|---|---|",
    );
    for (const s of ["all", ...sources]) {
      const mineO = ranked.filter((o) => s === "all" || cases[o.k]!.source === s);
      const mine = mineO.map((o) => covered.get(o.k)!);
      // ECE on the per-fold temperature: the probabilities of each case as the other folds calibrated them.
      const eS = eceWith(mineO, d, probsNested);
      console.log(
        `| ${s} | ${mine.length} | ${((100 * mine.filter((m) => m.cov).length) / mine.length).toFixed(1)} % | ${median(mine.map((m) => m.size))} | ${eS.toFixed(3)} |`,
      );
    }
    const probsAll = new Map(ranked.map((o) => [o.k, softmax(o.z, temp)]));
    const tausAll = thresholds(ranked, d, probsAll);
    const layoutP = layout(spec);
    const constants = {
      shared: Object.fromEntries(spec.shared.map((f, i) => [f, +wAll[i]!.toFixed(4)])),
      byType: Object.fromEntries(
        PERTURBATION_TYPES.map((t, ti) => [
          t,
          Object.fromEntries(
            spec.byType.map((f, i) => [
              f,
              +wAll[spec.shared.length + ti * spec.byType.length + i]!.toFixed(4),
            ]),
          ),
        ]),
      ),
      byKind: Object.fromEntries(
        LIST_KINDS.map((kd, ki) => [
          kd,
          Object.fromEntries(
            spec.byKind.map((f, i) => [
              f,
              +wAll[spec.shared.length + T * spec.byType.length + ki * spec.byKind.length + i]!.toFixed(4),
            ]),
          ),
        ]),
      ),
      byGroup: Object.fromEntries(
        PERTURBATION_TYPES.flatMap((t, ti) =>
          LIST_KINDS.map((kd, ki) => [
            `${t}/${kd}`,
            Object.fromEntries(
              (spec.byGroup ?? []).map((f, i) => [
                f,
                +wAll[
                  spec.shared.length +
                    T * spec.byType.length +
                    LIST_KINDS.length * spec.byKind.length +
                    (ti * LIST_KINDS.length + ki) * (spec.byGroup ?? []).length +
                    i
                ]!.toFixed(4),
              ]),
            ),
          ]),
        ),
      ),
      temperature: +temp.toFixed(4),
      predictionSet: Object.fromEntries(
        [...tausAll].map(([g, r]) => [
          g,
          { rule: r.rule, value: r.rule === "aps" ? +r.value.toFixed(6) : r.value },
        ]),
      ),
      developmentCases: Object.fromEntries(
        PERTURBATION_TYPES.flatMap((t, ti) =>
          LIST_KINDS.map((kd, ki) => [
            `${t}/${kd}`,
            all.filter((k) => d.typeOf[k] === ti && d.kindOf[k] === ki && d.accepted[k]!.length > 0).length,
          ]),
        ),
      ),
    };
    console.log(
      `\nshipped constants (fitted on all ${ranked.length} ranked cases, ${layoutP.P} parameters):`,
    );
    console.log(JSON.stringify(constants, null, 1));
    if (write) {
      writeFileSync(V4_MODEL_PATH, `${JSON.stringify(V4ModelSchema.parse(constants), null, 2)}\n`);
      console.log(`written to ${fileURLToPath(V4_MODEL_PATH)}`);
    }
  }
}

if (import.meta.url === `file://${process.argv[1]}`) await main();
