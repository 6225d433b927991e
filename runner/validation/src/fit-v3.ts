/**
 * `node runner/validation/src/fit-v3.ts [--cases DIR] [--libraries DIR] [--folds K]`: how model
 * v3's weights were chosen (runner/docs/model-v3.md). For every case of DIR (default
 * shared/data/known_answers_v2, leakage rule on, scored as a job scores the same DEG list), the
 * v3 evidence of every candidate is computed with the shipped code (scoreTargetsV3); a
 * conditional logit (one softmax over the candidates per case, the expected target the chosen
 * one) is fitted on candidate feature sets, each judged by K-fold cross-validation grouped by
 * `split_group` (a GEO series never sits on both sides of a fold). Prints the held-out figures
 * per feature set and the weights fitted on all cases for the best one. Benchmark code only.
 */
import { existsSync } from "node:fs";
import { resolve } from "node:path";
import { parseArgs } from "node:util";
import { sharedData } from "../../../test/shared-data.ts";
import { loadLayersFromDir } from "@causeway/runner/libraries";
import { SCORINGS, scoreTargetsV3, type TargetScoreRow } from "@causeway/runner/scoring";
import { prepareCase, readCaseDir } from "./case-dir.ts";
import { defaultNetworkContext } from "./context.ts";
import { median } from "./metrics.ts";

/** Per candidate: every feature a v3 score may use. */
const FEATURES = [
  "log_out_degree",
  "tf_layers",
  "kinase_layers",
  "propagated",
  "tf_binding",
  "tf_coexpression",
  "kinase",
  "ulm",
  "direct",
] as const;
type Feature = (typeof FEATURES)[number];

/** The feature sets compared (the first is popularity alone; the shipped one is `prior + evidence + ulm`). */
const FEATURE_SETS: Record<string, readonly Feature[]> = {
  "prior only": ["log_out_degree", "tf_layers", "kinase_layers"],
  "prior + propagated + direct": ["log_out_degree", "tf_layers", "kinase_layers", "propagated", "direct"],
  "prior + layers": [
    "log_out_degree",
    "tf_layers",
    "kinase_layers",
    "propagated",
    "tf_binding",
    "tf_coexpression",
    "kinase",
  ],
  "prior + layers + ulm (v3)": [
    "log_out_degree",
    "tf_layers",
    "kinase_layers",
    "propagated",
    "tf_binding",
    "tf_coexpression",
    "kinase",
    "ulm",
  ],
  "prior + layers + ulm + direct": [...FEATURES],
};

const ev = (p: unknown): number =>
  typeof p === "number" && p > 0 ? Math.log1p(Math.max(0, -Math.log10(p))) : 0;

function featuresOf(
  row: TargetScoreRow,
  outDegree: number,
  nTf: number,
  nKin: number,
): Record<Feature, number> {
  return {
    log_out_degree: Math.log1p(outDegree),
    tf_layers: nTf,
    kinase_layers: nKin,
    propagated: ev(row.pvalue_propagated),
    tf_binding: ev(row.pvalue_tf_binding),
    tf_coexpression: ev(row.pvalue_tf_coexpression),
    kinase: ev(row.pvalue_kinase),
    ulm: typeof row.ulm_t === "number" ? Math.log1p(Math.abs(row.ulm_t)) : 0,
    direct: ev(row.pvalue_direct),
  };
}

interface FitCase {
  id: string;
  source: string;
  group: string;
  /** Candidate-major feature matrix (nS × FEATURES.length). */
  x: Float64Array;
  /** Index of the expected target among the candidates, −1 when it is not one. */
  target: number;
}

/** Log-likelihood of the conditional logit (minus a small ridge), its gradient and Hessian. */
function logitTerms(
  cases: readonly FitCase[],
  cols: readonly number[],
  w: Float64Array,
  nS: number,
  ridge: number,
) {
  const P = cols.length;
  const F = FEATURES.length;
  let ll = 0;
  const g = new Float64Array(P);
  const H = new Float64Array(P * P);
  const z = new Float64Array(nS);
  for (const c of cases) {
    if (c.target < 0) continue;
    let mx = -Infinity;
    for (let s = 0; s < nS; s++) {
      let v = 0;
      for (let a = 0; a < P; a++) v += w[a]! * c.x[s * F + cols[a]!]!;
      z[s] = v;
      if (v > mx) mx = v;
    }
    let Z = 0;
    for (let s = 0; s < nS; s++) Z += z[s] = Math.exp(z[s]! - mx);
    ll += Math.log(z[c.target]! / Z);
    const mu = new Float64Array(P);
    const s2 = new Float64Array(P * P);
    for (let s = 0; s < nS; s++) {
      const p = z[s]! / Z;
      if (p < 1e-15) continue;
      for (let a = 0; a < P; a++) {
        const xa = c.x[s * F + cols[a]!]!;
        mu[a] = mu[a]! + p * xa;
        for (let b = 0; b <= a; b++) s2[a * P + b] = s2[a * P + b]! + p * xa * c.x[s * F + cols[b]!]!;
      }
    }
    for (let a = 0; a < P; a++) {
      g[a] = g[a]! + c.x[c.target * F + cols[a]!]! - mu[a]!;
      for (let b = 0; b <= a; b++) H[a * P + b] = H[a * P + b]! + s2[a * P + b]! - mu[a]! * mu[b]!;
    }
  }
  for (let a = 0; a < P; a++) {
    ll -= 0.5 * ridge * w[a]! * w[a]!;
    g[a] = g[a]! - ridge * w[a]!;
    H[a * P + a] = H[a * P + a]! + ridge;
    for (let b = 0; b < a; b++) H[b * P + a] = H[a * P + b]!;
  }
  return { ll, g, H };
}

/** Solves H d = g (H positive definite, small) by Gaussian elimination with partial pivoting. */
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

/** Newton's method with step halving (the log-likelihood is concave). */
function fit(cases: readonly FitCase[], cols: readonly number[], nS: number, ridge = 1e-3): Float64Array {
  let w = new Float64Array(cols.length);
  let cur = logitTerms(cases, cols, w, nS, ridge);
  for (let it = 0; it < 50; it++) {
    const d = solve(cur.H, cur.g);
    let step = 1;
    let next = cur;
    let wNext = w;
    for (let k = 0; k < 30; k++, step /= 2) {
      wNext = Float64Array.from(w, (v, a) => v + step * d[a]!);
      next = logitTerms(cases, cols, wNext, nS, ridge);
      if (next.ll >= cur.ll) break;
    }
    if (!(next.ll >= cur.ll)) break;
    const gain = next.ll - cur.ll;
    w = wNext;
    cur = next;
    if (gain < 1e-6) break;
  }
  return w;
}

/** q (mid-rank quantile, 0 best) of the expected target under weights w. */
function heldOutQ(c: FitCase, cols: readonly number[], w: Float64Array, nS: number): number {
  if (c.target < 0) return 1;
  const F = FEATURES.length;
  const score = (s: number): number => cols.reduce((a, col, i) => a + w[i]! * c.x[s * F + col]!, 0);
  const t = score(c.target);
  let above = 0;
  let ties = 0;
  for (let s = 0; s < nS; s++) {
    if (s === c.target) continue;
    const v = score(s);
    if (v > t) above++;
    else if (v === t) ties++;
  }
  return (above + ties / 2) / (nS - 1);
}

/** Fold of each case: its split group's position in a seeded order of the groups, mod K. */
function foldsOf(cases: readonly FitCase[], k: number): number[] {
  const groups = [...new Set(cases.map((c) => c.group))].sort();
  const hash = (s: string): number => {
    let x = 2166136261;
    for (const ch of s) x = Math.imul(x ^ ch.charCodeAt(0), 16777619) >>> 0;
    return x;
  };
  const fold = new Map(groups.map((g) => [g, hash(g) % k]));
  return cases.map((c) => fold.get(c.group)!);
}

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: { cases: { type: "string" }, libraries: { type: "string" }, folds: { type: "string" } },
  });
  const casesDir = resolve(values.cases ?? sharedData("known_answers_v2"));
  const librariesDir = resolve(values.libraries ?? sharedData("libraries"));
  if (!existsSync(librariesDir)) throw new Error(`no libraries at ${librariesDir}`);
  const K = Number(values.folds ?? 5);
  const ctx = await defaultNetworkContext({ librariesDir });
  const bundle = await ctx.bundle(SCORINGS.v3.walk);
  const model = bundle.withLayers(await loadLayersFromDir(librariesDir, bundle.symbols));
  const nS = model.nSources;
  const nTf = new Int32Array(nS);
  const nKin = new Int32Array(nS);
  for (const layer of model.layers)
    for (const reg of layer.sets.keys()) {
      const s = model.sourceIndex(reg);
      if (s >= 0) (layer.kind === "kinase" ? nKin : nTf)[s]!++;
    }
  const files = await readCaseDir(casesDir);
  const cases: FitCase[] = [];
  for (const f of files) {
    const c = prepareCase(ctx.primary, f);
    const rows = scoreTargetsV3(c.scoringInput(model, "v3")).rows;
    const x = new Float64Array(nS * FEATURES.length);
    for (const r of rows) {
      const sym = r.id.slice(0, r.id.lastIndexOf("|"));
      const s = model.sourceIndex(sym);
      const feats = featuresOf(r, model.outDegree(sym), nTf[s]!, nKin[s]!);
      FEATURES.forEach((name, i) => (x[s * FEATURES.length + i] = feats[name]));
    }
    cases.push({
      id: c.id,
      source: c.source,
      group: c.splitGroup ?? c.id,
      x,
      target: model.sourceIndex(c.expected),
    });
    if (cases.length % 50 === 0) process.stderr.write(`\rfeatures of ${cases.length}/${files.length} cases`);
  }
  process.stderr.write("\n");
  const folds = foldsOf(cases, K);
  const sources = [...new Set(cases.map((c) => c.source))].sort();
  const fmt = (qs: number[]): string =>
    `${median(qs).toFixed(4)} / ${((100 * qs.filter((q) => q <= 0.05).length) / qs.length).toFixed(1)} %`;
  console.log(
    `| feature set (${K}-fold CV grouped by split_group) | all: median q / top 5 % | ${sources.join(" | ")} |`,
  );
  console.log(`|---|---|${sources.map(() => "---").join("|")}|`);
  let best: { name: string; cols: number[]; objective: number } | null = null;
  for (const [name, feats] of Object.entries(FEATURE_SETS)) {
    const cols = feats.map((f) => FEATURES.indexOf(f));
    const q = new Float64Array(cases.length);
    for (let k = 0; k < K; k++) {
      const w = fit(
        cases.filter((_, i) => folds[i] !== k),
        cols,
        nS,
      );
      cases.forEach((c, i) => {
        if (folds[i] === k) q[i] = heldOutQ(c, cols, w, nS);
      });
    }
    const all = [...q];
    const bySource = sources.map((s) => fmt(all.filter((_, i) => cases[i]!.source === s)));
    console.log(`| ${name} | ${fmt(all)} | ${bySource.join(" | ")} |`);
    // The choice: the mean log10 q held out (rewards the median and the tail alike), ties to the simpler set.
    const objective = all.reduce((a, v) => a + Math.log10(Math.max(v, 1 / (nS - 1))), 0) / all.length;
    if (best === null || objective < best.objective - 1e-9) best = { name, cols, objective };
  }
  if (best) {
    const w = fit(cases, best.cols, nS);
    console.log(
      `\nchosen: ${best.name} (mean log10 q held out ${best.objective.toFixed(3)}); weights fitted on all cases:`,
    );
    best.cols.forEach((col, i) => console.log(`  ${FEATURES[col]}: ${w[i]!.toFixed(2)}`));
  }
}

await main();
