/**
 * Summary metrics of `npm run validate` over case records (model.md §16.2): median and mean q,
 * the share of cases with the expected target in the top 1, 5 and 10 %, and the per-target
 * AUROC across experiments, which no popularity prior can game.
 */
import type { CaseRecord } from "./benchmark.ts";
import { mean, median } from "./metrics.ts";

export interface CaseTruth {
  expected: string;
  accepted: readonly string[];
}

export interface MethodSummary {
  method: string;
  cases: number;
  median_q: number;
  mean_q: number;
  top1: number;
  top5: number;
  top10: number;
  /** Median q* (best accepted target) and the share of cases with q* <= 0.05. */
  median_q_star: number;
  top5_q_star: number;
  /** Mean over targets of the per-target AUROC across experiments; NaN when no target has both classes. */
  per_target_auroc: number;
  /** Targets the AUROC averages over. */
  auroc_targets: number;
}

/**
 * Per-target AUROC across experiments: for each protein that is the expected target of some
 * case, the probability that it ranks higher (smaller q) in a case that perturbed it than in a
 * case that did not (cases that accept it are neither), ties counting one half; averaged over
 * the proteins with both kinds of case. A ranking that ignores the data ranks each protein the
 * same in every case and scores exactly 0.5.
 */
export function perTargetAuroc(
  records: readonly CaseRecord[],
  truth: ReadonlyMap<string, CaseTruth>,
): { auroc: number; targets: number } {
  const targets = new Set<string>();
  for (const r of records) {
    const t = truth.get(r.id);
    if (t) targets.add(t.expected);
  }
  const aurocs: number[] = [];
  for (const target of targets) {
    const pos: number[] = [];
    const neg: number[] = [];
    for (const r of records) {
      const t = truth.get(r.id);
      const q = r.q_targets[target];
      if (!t || q === undefined) continue;
      if (t.expected === target) pos.push(q);
      else if (!t.accepted.includes(target)) neg.push(q);
    }
    if (pos.length === 0 || neg.length === 0) continue;
    neg.sort((a, b) => a - b);
    let wins = 0;
    for (const p of pos) {
      // Negatives with a larger q count 1, equal ones ½.
      const below = upperBound(neg, p);
      const belowOrEqualStart = lowerBound(neg, p);
      wins += neg.length - below + (below - belowOrEqualStart) / 2;
    }
    aurocs.push(wins / (pos.length * neg.length));
  }
  return { auroc: mean(aurocs), targets: aurocs.length };
}

/** First index with xs[i] >= v (xs sorted ascending). */
function lowerBound(xs: readonly number[], v: number): number {
  let lo = 0;
  let hi = xs.length;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (xs[mid]! < v) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/** First index with xs[i] > v (xs sorted ascending). */
function upperBound(xs: readonly number[], v: number): number {
  let lo = 0;
  let hi = xs.length;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (xs[mid]! <= v) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

export function summarizeMethod(
  method: string,
  records: readonly CaseRecord[],
  truth: ReadonlyMap<string, CaseTruth>,
): MethodSummary {
  const mine = records.filter((r) => r.method === method);
  const q = mine.flatMap((r) => (r.q === null ? [] : [r.q]));
  const share = (limit: number, xs = q): number =>
    xs.length ? xs.filter((x) => x <= limit).length / xs.length : NaN;
  const qStar = mine.flatMap((r) => (r.q_star === null ? [] : [r.q_star]));
  const { auroc, targets } = perTargetAuroc(mine, truth);
  return {
    method,
    cases: q.length,
    median_q: median(q),
    mean_q: mean(q),
    top1: share(0.01),
    top5: share(0.05),
    top10: share(0.1),
    median_q_star: median(qStar),
    top5_q_star: share(0.05, qStar),
    per_target_auroc: auroc,
    auroc_targets: targets,
  };
}

const fmtQ = (q: number): string =>
  !Number.isFinite(q) ? "–" : q < 0.001 ? q.toExponential(1) : q.toFixed(3);
const pct = (x: number): string => (Number.isFinite(x) ? `${(100 * x).toFixed(1)} %` : "–");

/** The markdown table of one group of cases. */
export function summaryTable(title: string, summaries: readonly MethodSummary[]): string[] {
  const lines = [
    `### ${title}`,
    "",
    "| method | cases | median q | mean q | top 1 % | top 5 % | top 10 % | per-target AUROC (targets) | median q* | top 5 % q* |",
    "|---|---|---|---|---|---|---|---|---|---|",
  ];
  for (const s of summaries)
    lines.push(
      `| ${s.method} | ${s.cases} | ${fmtQ(s.median_q)} | ${fmtQ(s.mean_q)} | ${pct(s.top1)} | ${pct(s.top5)} | ${pct(s.top10)} | ${Number.isFinite(s.per_target_auroc) ? s.per_target_auroc.toFixed(3) : "–"} (${s.auroc_targets}) | ${fmtQ(s.median_q_star)} | ${pct(s.top5_q_star)} |`,
    );
  lines.push("");
  return lines;
}
