/** Summary metrics of model.md §16.2 over known-answer cases. */

/** Rank (0-based) and rank_percentage of the expected and the best accepted target in one case. */
export interface CaseOutcome {
  id: string;
  expectedRank: number;
  q: number;
  bestAccepted: string;
  bestRank: number;
  qStar: number;
}

/** Median (mean of the two middle values for even counts); NaN when empty. */
export const median = (xs: readonly number[]): number => {
  const s = [...xs].sort((a, b) => a - b);
  const m = s.length;
  return m === 0 ? NaN : m % 2 === 1 ? s[(m - 1) / 2]! : (s[m / 2 - 1]! + s[m / 2]!) / 2;
};

/** Arithmetic mean; NaN when empty. */
export const mean = (xs: readonly number[]): number =>
  xs.length === 0 ? NaN : xs.reduce((a, b) => a + b, 0) / xs.length;

/** Median and mean q and q*, mean AUROC = 1 − mean q, and top-k recall of §16.2. */
export function summarize(outcomes: readonly CaseOutcome[]): Record<string, number> {
  const q = outcomes.map((o) => o.q);
  const qs = outcomes.map((o) => o.qStar);
  const frac = (pred: (o: CaseOutcome) => boolean): number => outcomes.filter(pred).length / outcomes.length;
  const out: Record<string, number> = {
    median_q: median(q),
    mean_q: mean(q),
    median_q_star: median(qs),
    mean_q_star: mean(qs),
    mean_auroc: 1 - mean(q),
  };
  for (const k of [1, 10, 50, 100]) {
    out[`top${k}_expected`] = frac((o) => o.expectedRank < k);
    out[`top${k}_accepted`] = frac((o) => o.bestRank < k);
  }
  for (const t of [0.01, 0.05]) {
    out[`q<=${t}_expected`] = frac((o) => o.q <= t);
    out[`q<=${t}_accepted`] = frac((o) => o.qStar <= t);
  }
  return out;
}
