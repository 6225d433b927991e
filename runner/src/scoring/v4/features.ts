/**
 * The per-candidate features model v4 scores (runner/docs/model-v4.md). One function, read by
 * the scorer and by the research harness that fitted its weights (runner/validation/src/fit-v4.ts),
 * so the shipped score is computed from exactly the numbers the fit saw.
 *
 * Data evidence (from v3's evidence, plus raw influence and a DE-table ULM), and where the
 * candidate sits in the network (transcription factor, or how many signalling steps above one;
 * whether it heads a signalling cascade, as ligands do, or is reached from such a head, as
 * receptors are). The network alone says where a candidate sits, so any model version's network
 * gets the same annotation without a gene list.
 */
import { GENE_SET_KINDS } from "../../libraries/gmt.ts";
import type { Model } from "../../model/index.ts";
import type { ScoreTargetsResult } from "../score-targets-v1.ts";
import { layerGroupEvidence } from "../score-targets-v3.ts";
import type { ScoreTargetsV2Input } from "../score-targets-v2.ts";
import { ulmActivity } from "../ulm.ts";
import { layerMembership, ppiDegree, sourceClasses } from "./candidate-classes.ts";
import { v4Candidates } from "./candidates.ts";

/** What the submitter says they did to the cells (the contract's list); conditions v4's class prior. */
export { PERTURBATION_TYPES, type PerturbationType } from "@causeway/contract";

/**
 * What the job's DEG evidence is: a DE table (a statistic or fold change for every measured gene), a signed
 * list (DEGs up and down), a one-sided list (signs given, all the same way: e.g. only the genes
 * a knockdown raised), or an unsigned list. Each kind has its own calibration: the same model
 * is more or less sure of itself depending on what it was given.
 */
export const LIST_KINDS = ["table", "signed", "one_sided", "unsigned"] as const;
export type ListKind = (typeof LIST_KINDS)[number];

export function listKindOf(input: Pick<ScoreTargetsV2Input, "log2fc" | "testStatistic" | "degs">): ListKind {
  if (tableStatistic(input)) return "table";
  let up = false;
  let down = false;
  for (const g of input.degs) {
    const v = input.log2fc?.get(g);
    if (v === null || v === undefined || !Number.isFinite(v)) continue;
    if (v > 0) up = true;
    else if (v < 0) down = true;
  }
  return up && down ? "signed" : up || down ? "one_sided" : "unsigned";
}

/** DEG lists shorter than this are `short` for calibration: a short list says less. */
export const SHORT_LIST = 100;
export const LIST_SIZES = ["short", "long"] as const;
export type ListSize = (typeof LIST_SIZES)[number];
export const listSizeOf = (nDegs: number): ListSize => (nDegs < SHORT_LIST ? "short" : "long");

/** The data evidence features. */
const EVIDENCE_FEATURES = [
  "propagated",
  "tf_binding",
  "tf_coexpression",
  "kinase",
  "ulm",
  "direct",
  "raw_influence",
  "ulm_table",
  "has_table",
  "layer_rank",
  "layer_top",
  "downstream_tf",
  "propagated_signaling",
  "ppi",
] as const;

/** The class features: where a candidate sits and how popular it is (what v4's prior is made of). */
export const V4_CLASS_FEATURES = [
  "log_out_degree",
  "tf_layers",
  "kinase_layers",
  "is_tf",
  "steps_1",
  "steps_2",
  "steps_3",
  "apex",
  "below_apex",
  "log_signaling_in",
  "off_network",
  "log_ppi_degree",
] as const;

/** Feature names, in column order of the feature matrix: the evidence, then the class. */
export const V4_FEATURES = [...EVIDENCE_FEATURES, ...V4_CLASS_FEATURES] as const;
export type V4Feature = (typeof V4_FEATURES)[number];
export const N_V4_FEATURES = V4_FEATURES.length;

const COLUMN = Object.fromEntries(V4_FEATURES.map((f, i) => [f, i])) as Record<V4Feature, number>;
/** A feature's column in the feature matrix (a lookup: the feature loops run per candidate). */
export const featureColumn = (f: V4Feature): number => COLUMN[f];

/** The features of the evidence layers' tests (ChEA3/KEA3 libraries, PPI partners). */
const LAYER_TEST_FEATURES = ["tf_binding", "tf_coexpression", "kinase", "ppi"] as const;
/** ln(1 + −log10 0.05): the feature of a layer p-value of 0.05. */
const LAYER_EVIDENCE_MIN = Math.log1p(-Math.log10(0.05));

/**
 * Whether a candidate (row `c` of a feature matrix) has a layer p-value below 0.05. The table
 * ranks a protein beyond the network without one after the network's candidates (whatever its
 * probability): nothing in the job points to it, and placed by its class prior alone it would
 * push every network candidate the data point to weakly past thousands of chance picks.
 */
export function hasLayerEvidence(x: ArrayLike<number>, c: number, offset = 0): boolean {
  return LAYER_TEST_FEATURES.some((f) => x[offset + c * N_V4_FEATURES + COLUMN[f]]! >= LAYER_EVIDENCE_MIN);
}

const evidence = (p: unknown): number =>
  typeof p === "number" && Number.isFinite(p) && p > 0 ? Math.log1p(Math.max(0, -Math.log10(p))) : 0;
const symbolOf = (id: string): string => id.slice(0, id.lastIndexOf("|"));

/**
 * The per-gene statistic table ULM regresses: the DE test's statistic when the job has one, else
 * the fold changes; null for a bare (or signed) list: a table measures far more genes than it
 * calls DEGs. The test statistic is preferred because it weighs a fold change by how well it
 * was measured: a lowly expressed gene's fold change is large and mostly noise.
 */
export function tableStatistic(
  input: Pick<ScoreTargetsV2Input, "log2fc" | "testStatistic" | "degs">,
): ReadonlyMap<string, number> | null {
  const enough = (m: ReadonlyMap<string, number>): boolean => m.size >= Math.max(200, 2 * input.degs.length);
  if (input.testStatistic && enough(input.testStatistic)) return input.testStatistic;
  if (!input.log2fc) return null;
  const out = new Map<string, number>();
  for (const [g, v] of input.log2fc) if (v !== null && Number.isFinite(v)) out.set(g, v);
  return enough(out) ? out : null;
}

/**
 * The feature matrix (candidate-major, one row per v4 candidate: candidates.ts, the network's
 * sources first in bundle row order) of one job, from its input and its v3 result (which
 * carries the propagated, layer, ULM and direct-target evidence of the sources). A candidate
 * beyond the network has its layers' evidence only: every feature of the walk is 0.
 */
export function v4Features(
  input: ScoreTargetsV2Input,
  v3: ScoreTargetsResult,
  layers: LayersBeyondV3 = layersBeyondV3(input),
): Float64Array {
  const { model } = input;
  const nS = model.nSources;
  const F = N_V4_FEATURES;
  const x = new Float64Array(v4Candidates(model).n * F);
  const cls = sourceClasses(model);
  const membership = layerMembership(model);

  // Raw influence Σ_d I(s,d) on a log scale, standardized over the candidates: the softmax
  // compares candidates within a job, and the scale keeps one weight meaningful across DEG counts.
  const raw = Float64Array.from(v3.influenceSum, (sum) => Math.log(sum + 1e-9));
  standardize(raw);

  const table = tableStatistic(input);
  const ulmTable = table ? ulmActivity(model, table, 5, true).t : null;

  const col = featureColumn;
  const [cProp, cTfB, cTfC, cKin, cUlm, cDir] = [
    col("propagated"),
    col("tf_binding"),
    col("tf_coexpression"),
    col("kinase"),
    col("ulm"),
    col("direct"),
  ];
  for (const r of v3.rows) {
    const s = model.sourceIndex(symbolOf(r.id));
    const o = s * F;
    x[o + cProp] = evidence(r.pvalue_propagated);
    x[o + cTfB] = evidence(r.pvalue_tf_binding);
    x[o + cTfC] = evidence(r.pvalue_tf_coexpression);
    x[o + cKin] = evidence(r.pvalue_kinase);
    x[o + cUlm] = typeof r.ulm_t === "number" ? Math.log1p(Math.abs(r.ulm_t)) : 0;
    x[o + cDir] = evidence(r.pvalue_direct);
  }
  const ids = model.sourceSymbols;
  for (let s = 0; s < nS; s++) {
    const o = s * F;
    const t = ulmTable ? ulmTable[s]! : NaN;
    x[o + col("raw_influence")] = raw[s]!;
    x[o + col("ulm_table")] = Number.isFinite(t) ? Math.log1p(Math.abs(t)) : 0;
    x[o + col("has_table")] = ulmTable && Number.isFinite(t) ? 1 : 0;
    x[o + col("log_out_degree")] = Math.log1p(model.outDegree(ids[s]!));
    x[o + col("tf_layers")] = membership.tf[s]!;
    x[o + col("kinase_layers")] = membership.kinase[s]!;
    x[o + col("is_tf")] = cls.isTf[s]!;
    x[o + col("steps_1")] = cls.steps[s] === 1 ? 1 : 0;
    x[o + col("steps_2")] = cls.steps[s] === 2 ? 1 : 0;
    x[o + col("steps_3")] = cls.steps[s]! >= 3 && cls.isTf[s] === 0 ? 1 : 0;
    x[o + col("apex")] = cls.apex[s]!;
    x[o + col("below_apex")] = cls.belowApex[s]!;
    x[o + col("log_signaling_in")] = Math.log1p(cls.signalingIn[s]!);
  }
  writeLayerFeatures(model, layers, x);
  deriveFeatures(model, x);
  return x;
}

/** The layer p-values v3 does not compute, per v4 candidate (NaN where no layer holds it). */
export interface LayersBeyondV3 {
  /** The interaction partners' overlap with the DEGs (PPI layers), every candidate. */
  ppi: Float64Array;
  /** The gene-set libraries' evidence of the candidates beyond the network (NaN for sources: v3 has theirs). */
  tf_binding: Float64Array;
  tf_coexpression: Float64Array;
  kinase: Float64Array;
  /** How many TF and kinase libraries name each candidate beyond the network. */
  tfLayers: Int32Array;
  kinaseLayers: Int32Array;
}

/** The same Fisher tests v3 runs for the sources: PPI layers for all, libraries for the rest. */
export function layersBeyondV3(input: ScoreTargetsV2Input): LayersBeyondV3 {
  const { model } = input;
  const cands = v4Candidates(model);
  const ppi = layerGroupEvidence(model, input, model.layers, ["ppi"], cands).p.get("ppi")!;
  const off = layerGroupEvidence(model, input, model.layers, GENE_SET_KINDS, cands.offNetwork);
  const count = (k: (typeof GENE_SET_KINDS)[number]): Int32Array => off.count.get(k)!;
  return {
    ppi,
    tf_binding: off.p.get("tf_binding")!,
    tf_coexpression: off.p.get("tf_coexpression")!,
    kinase: off.p.get("kinase")!,
    tfLayers: count("tf_binding").map((v, c) => v + count("tf_coexpression")[c]!),
    kinaseLayers: count("kinase"),
  };
}

function writeLayerFeatures(model: Model, layers: LayersBeyondV3, x: Float64Array): void {
  const cands = v4Candidates(model);
  const F = N_V4_FEATURES;
  const col = featureColumn;
  const degree = ppiDegree(model);
  for (let c = 0; c < cands.n; c++) {
    x[c * F + col("ppi")] = evidence(layers.ppi[c]);
    x[c * F + col("log_ppi_degree")] = Math.log1p(degree[c]!);
  }
  for (let c = cands.nNetwork; c < cands.n; c++) {
    const o = c * F;
    x[o + col("off_network")] = 1;
    x[o + col("tf_binding")] = evidence(layers.tf_binding[c]);
    x[o + col("tf_coexpression")] = evidence(layers.tf_coexpression[c]);
    x[o + col("kinase")] = evidence(layers.kinase[c]);
    x[o + col("tf_layers")] = layers.tfLayers[c]!;
    x[o + col("kinase_layers")] = layers.kinaseLayers[c]!;
  }
}

/**
 * The features computed from the others (the research harness derives them from its cache the
 * same way): layer ranks, downstream TF evidence, and the propagated evidence of a candidate
 * that is not a transcription factor (a receptor or kinase has no regulon of its own: the walk
 * through its signalling edges is its main evidence, so it may weigh differently).
 */
export function deriveFeatures(model: Model, x: Float64Array): void {
  const F = N_V4_FEATURES;
  const nC = x.length / F;
  layerRanks(x, nC);
  downstreamTfEvidence(model, x);
  const [cProp, cTf, cOut] = (["propagated", "is_tf", "propagated_signaling"] as const).map((f) =>
    featureColumn(f),
  );
  for (let s = 0; s < nC; s++) x[s * F + cOut!] = x[s * F + cTf!] === 1 ? 0 : x[s * F + cProp!]!;
}

/** Signalling steps a candidate's evidence is gathered over in `downstream_tf`. */
const DOWNSTREAM_STEPS = 3;

/**
 * Evidence that depends on where a candidate sits: the activity evidence of the transcription
 * factors a signalling protein reaches (ULM on the list and on the table, and the TF layers),
 * averaged along its signalling out-edges (each step splits by the walk's transition weights)
 * over up to three steps. A receptor whose TFs moved scores high without being a hub: the
 * average, not the sum, is taken.
 */
export function downstreamTfEvidence(model: Model, x: Float64Array): void {
  const F = N_V4_FEATURES;
  const nS = model.nSources;
  const g = model.graph;
  const nP = g.proteinNodes.length;
  const cols = (["ulm", "ulm_table", "tf_binding", "tf_coexpression"] as const).map((f) => featureColumn(f));
  // TF activity evidence per protein (layer index); 0 for proteins that are not candidates.
  const tfEv = new Float64Array(nP);
  const cls = sourceClasses(model);
  for (let s = 0; s < nS; s++) {
    if (cls.isTf[s] !== 1) continue;
    let e = 0;
    for (const c of cols) e += x[s * F + c]!;
    tfEv[model.sourceProteins[s]!] = e;
  }
  const { indptr, indices, data } = g.p;
  let d = Float64Array.from(tfEv);
  const acc = new Float64Array(nP);
  for (let step = 0; step < DOWNSTREAM_STEPS; step++) {
    const next = new Float64Array(nP);
    for (let p = 0; p < nP; p++) {
      const u = g.proteinNodes[p]!;
      let w = 0;
      let v = 0;
      for (let e = indptr[u]!; e < indptr[u + 1]!; e++) {
        const t = indices[e]!;
        if (g.isRna[t] === 1) continue;
        w += data[e]!;
        v += data[e]! * d[g.layerIndex[t]!]!;
      }
      next[p] = w > 0 ? v / w : 0;
    }
    for (let p = 0; p < nP; p++) acc[p] = Math.max(acc[p]!, next[p]!);
    d = next;
  }
  const c = featureColumn("downstream_tf");
  for (let s = 0; s < nS; s++) x[s * F + c] = acc[model.sourceProteins[s]!]!;
}

/**
 * The layer evidence as ranks, as a ChEA3/KEA3 integration reads its libraries: per layer group,
 * each candidate's scaled rank among the candidates with evidence in it (1 best, 0 without), then
 * their mean over the groups that hold the candidate (`layer_rank`) and their best (`layer_top`).
 * Ranks do not saturate when a long DEG list makes every Fisher p tiny.
 */
export function layerRanks(x: Float64Array, nC: number): void {
  const F = N_V4_FEATURES;
  const groups = (["tf_binding", "tf_coexpression", "kinase"] as const).map((g) => featureColumn(g));
  const sum = new Float64Array(nC);
  const held = new Int32Array(nC);
  const top = new Float64Array(nC);
  for (const c of groups) {
    const withEv: number[] = [];
    for (let s = 0; s < nC; s++) if (x[s * F + c]! > 0) withEv.push(s);
    withEv.sort((a, b) => x[b * F + c]! - x[a * F + c]! || a - b);
    const m = withEv.length;
    withEv.forEach((s, r) => {
      const v = m > 1 ? 1 - r / (m - 1) : 1;
      sum[s] = sum[s]! + v;
      held[s]!++;
      top[s] = Math.max(top[s]!, v);
    });
  }
  const cRank = featureColumn("layer_rank");
  const cTop = featureColumn("layer_top");
  for (let s = 0; s < nC; s++) {
    x[s * F + cRank] = held[s]! > 0 ? sum[s]! / held[s]! : 0;
    x[s * F + cTop] = top[s]!;
  }
}

function standardize(v: Float64Array): void {
  let m = 0;
  for (const a of v) m += a;
  m /= v.length;
  let ss = 0;
  for (const a of v) ss += (a - m) * (a - m);
  const sd = Math.sqrt(ss / v.length) || 1;
  for (let i = 0; i < v.length; i++) v[i] = (v[i]! - m) / sd;
}
