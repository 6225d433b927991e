/**
 * Calibration on null inputs (model.md §16.1–16.2): random gene sets of a real DEG list's size
 * drawn uniformly from its universe, and label-permuted pseudo-bulk (kang-cases.ts). Per model
 * version: the fraction of candidates with p < 0.05 (≤ 0.05 for a valid test), and how many
 * candidates reach q (BH) < 0.05 (should be none).
 */
import type { Model } from "@causeway/runner/model";
import {
  Xoshiro128ss,
  seedFrom,
  scoreTargets,
  scoreTargetsV2,
  type ScoreTargetsResult,
  type ScoringVersion,
  type ScoreTargetsV2Input,
  type V2Settings,
} from "@causeway/runner/scoring";
import type { KnownAnswerCase } from "./known-answers.ts";

export interface NullSummary {
  source: string;
  version: ScoringVersion;
  nNullInputs: number;
  n: number;
  /** Mean over null inputs of the fraction of candidates with p < 0.05. */
  meanFracP05: number;
  maxFracP05: number;
  /** Null inputs with at least one candidate at q < 0.05, and the total count of such candidates. */
  inputsWithQ05: number;
  candidatesWithQ05: number;
  /** Null inputs with a candidate at Benjamini–Hochberg q < 0.05 (v1's qvalue; v2 reports BY), for comparison. */
  inputsWithBhQ05: number;
}

/** Whether any Benjamini–Hochberg adjusted p-value is below `alpha` (step-up: some p_(i) ≤ i·alpha/m). */
function anyBhBelow(p: readonly number[], alpha: number): boolean {
  const m = p.length;
  const s = [...p].sort((a, b) => a - b);
  return s.some((v, i) => v <= ((i + 1) * alpha) / m);
}

/** The scoring input of a case for a given DEG list. */
export function caseInput(model: Model, c: KnownAnswerCase, degs: string[]): ScoreTargetsV2Input {
  return {
    model,
    universe: c.universe,
    degs,
    degSignificanceFold: 1,
    minMeanExpression: 0.1,
    meanCp10kControl: c.meanCp10kControl,
    // What the case's data measured: its DE table's genes, or its count matrix's.
    measuredGenes: new Set([...c.universe, ...(c.meanCp10kControl?.keys() ?? []), ...degs]),
    ...(c.controlDepth ? { controlDepth: c.controlDepth } : {}),
    isDegSymbols: new Set(degs),
    nRandomizations: 0,
    seedSource: `${c.id}/`,
    log2fc: c.logFC,
  };
}

/**
 * The case's fold changes shuffled over its genes (seeded): the null for evidence read from the
 * fold changes of every measured gene (v2's ULM), to go with a random DEG list.
 */
export function permutedFoldChanges(c: KnownAnswerCase, seedSource: string): Map<string, number> {
  const genes = [...c.logFC.keys()].sort();
  const values = genes.map((g) => c.logFC.get(g)!);
  const rng = new Xoshiro128ss(seedFrom(seedSource).seed);
  for (let i = values.length - 1; i > 0; i--) {
    const j = rng.nextUint32() % (i + 1);
    [values[i], values[j]] = [values[j]!, values[i]!];
  }
  return new Map(genes.map((g, i) => [g, values[i]!]));
}

/**
 * Summarizes the p- and q-values of every model version over several null DEG lists of a case.
 * `permuteFoldChanges`: with a random DEG list, the real fold changes are not null for evidence
 * that reads every measured gene's fold change, so each null list gets its own shuffle of them.
 */
export function nullSummaries(
  model: Model,
  v2: { model: Model; settings: V2Settings },
  c: KnownAnswerCase,
  source: string,
  nullDegLists: string[][],
  permuteFoldChanges = false,
): NullSummary[] {
  const acc = {
    v1: { fracs: [] as number[], inputs: 0, cands: 0, bh: 0 },
    v2: { fracs: [] as number[], inputs: 0, cands: 0, bh: 0 },
  };
  const tally = (v: keyof typeof acc, res: ScoreTargetsResult): void => {
    const nP = res.rows.filter((r) => r.pvalue < 0.05).length;
    const nQ = res.rows.filter((r) => r.qvalue < 0.05).length;
    acc[v].fracs.push(nP / res.rows.length);
    if (nQ > 0) acc[v].inputs++;
    acc[v].cands += nQ;
    if (
      anyBhBelow(
        res.rows.map((r) => r.pvalue),
        0.05,
      )
    )
      acc[v].bh++;
  };
  nullDegLists.forEach((degs, i) => {
    tally("v1", scoreTargets(caseInput(model, c, degs)));
    const input = caseInput(v2.model, c, degs);
    if (permuteFoldChanges) input.log2fc = permutedFoldChanges(c, `calibration/${c.id}/fc/${i}`);
    tally("v2", scoreTargetsV2({ ...input, settings: v2.settings }));
  });
  return (["v1", "v2"] as const).map((version) => ({
    source,
    version,
    nNullInputs: nullDegLists.length,
    n: nullDegLists[0]?.length ?? 0,
    meanFracP05: acc[version].fracs.reduce((a, b) => a + b, 0) / Math.max(1, acc[version].fracs.length),
    maxFracP05: Math.max(0, ...acc[version].fracs),
    inputsWithQ05: acc[version].inputs,
    candidatesWithQ05: acc[version].cands,
    inputsWithBhQ05: acc[version].bh,
  }));
}

/** `count` random gene sets of size `n` from the case's model-mapped universe (seeded). */
export function randomGeneSets(model: Model, c: KnownAnswerCase, n: number, count: number): string[][] {
  const pool = [...new Set([...c.universe, ...c.degs])].filter((g) => model.rnaIndex(g) >= 0).sort();
  const rng = new Xoshiro128ss(seedFrom(`calibration/${c.id}`).seed);
  const sets: string[][] = [];
  for (let r = 0; r < count; r++) {
    const a = pool.slice();
    // Partial Fisher–Yates: the first n entries are a uniform sample without replacement.
    for (let i = 0; i < n; i++) {
      const j = i + (rng.nextUint32() % (a.length - i));
      [a[i], a[j]] = [a[j]!, a[i]!];
    }
    sets.push(a.slice(0, n));
  }
  return sets;
}
