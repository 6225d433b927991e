/**
 * Leave-one-case-out cross-validation of model settings (model.md §16.1: never tune on the
 * cases used to report performance). For each held-out case, the setting with the best
 * objective on the other cases is chosen, and the held-out case is reported under it.
 */

/** Objective to minimize over training cases: mean log10 q, so ranks near the top count most. */
export function cvObjective(qs: readonly number[], nCandidates: number): number {
  const floor = 1 / Math.max(1, nCandidates - 1);
  return qs.reduce((s, q) => s + Math.log10(Math.max(q, floor)), 0) / qs.length;
}

export interface CvResult<S> {
  /** Per case (input order): the setting chosen without it, and its q under that setting. */
  perCase: { caseIndex: number; setting: S; q: number; qStar: number }[];
  /** The setting chosen on all cases (the one a product would ship). */
  chosenOnAll: S;
}

/**
 * `q[s][c]`, `qStar[s][c]`: q of setting s on case c. Ties in the objective go to the earlier
 * setting, so list settings from simplest to most elaborate.
 */
export function leaveOneCaseOut<S>(
  settings: readonly S[],
  q: readonly (readonly number[])[],
  qStar: readonly (readonly number[])[],
  nCandidates: number,
): CvResult<S> {
  const nCases = q[0]?.length ?? 0;
  const best = (cases: number[]): number => {
    let bi = 0;
    let bv = Infinity;
    settings.forEach((_, s) => {
      const v = cvObjective(
        cases.map((c) => q[s]![c]!),
        nCandidates,
      );
      if (v < bv - 1e-12) {
        bv = v;
        bi = s;
      }
    });
    return bi;
  };
  const all = Array.from({ length: nCases }, (_, c) => c);
  return {
    perCase: all.map((c) => {
      const s = best(all.filter((x) => x !== c));
      return { caseIndex: c, setting: settings[s]!, q: q[s]![c]!, qStar: qStar[s]![c]! };
    }),
    chosenOnAll: settings[best(all)]!,
  };
}
