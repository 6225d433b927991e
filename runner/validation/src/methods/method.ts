/**
 * What a ranking method of `npm run validate` is: given one prepared known-answer case, a rank
 * for every candidate it ranks. Model versions, the baselines of model.md §16.3 and library
 * integrations (ChEA3/KEA3 style) all implement `RankingMethod`; registry.ts lists them.
 *
 * Benchmark code only: the product (jobs, scoring) never imports anything under validation/.
 */
import type { Model, WalkParams } from "@causeway/runner/model";
import type { ScoreTargetsV2Input, ScoringVersion } from "@causeway/runner/scoring";

/** One known-answer case, read and prepared once, with the leakage rule (§16.1) already applied. */
export interface PreparedCase {
  id: string;
  /** The case's collection (`source` of cases.tsv or case.json, e.g. chea3_tf); summaries group by it. */
  source: string;
  /** Cases sharing a split group (a GEO series) must sit on one side of a cross-validation fold. */
  splitGroup: string | null;
  /** Expected target symbol. */
  expected: string;
  /** Accepted target symbols (include the expected one). */
  accepted: readonly string[];
  /** DEG symbols after normalization, deduplicated, in file order, without the expected target's gene. */
  degs: readonly string[];
  /** Up and down DEGs (`degs_signed.json`, same leakage rule), when the case has them. */
  signed: { up: readonly string[]; down: readonly string[] } | null;
  /** The DE table's signed statistic per gene (expected target's gene removed), when the case has a table. */
  stat: ReadonlyMap<string, number> | null;
  /** log2 fold changes per gene from the DE table (expected target's gene removed); empty without one. */
  log2fc: ReadonlyMap<string, number>;
  /** The genes that could have been called DEGs: the table's genes plus the DEGs, or genome-wide for a bare list. */
  universe: readonly string[];
  /**
   * The scoring input a job builds for this case (jobs/scoring-input.ts) under a scoring version
   * and its bundle: model versions are scored exactly as the product scores the same input.
   */
  scoringInput(model: Model, version: ScoringVersion): ScoreTargetsV2Input;
}

/** A method's ranking of its own candidates for one case. */
export interface Ranking {
  /** Candidate symbols (the method's own candidate set, e.g. the bundle's sources S). */
  candidates: readonly string[];
  /** 0-based rank of each candidate (aligned with `candidates`); ties share their mid-rank. */
  ranks: Float64Array;
  /** Position of a symbol in `candidates`, or −1. */
  indexOf(symbol: string): number;
  /** A model's 90 % prediction set (model v4), when it reports one: its size and membership by candidate. */
  predictionSet?: { size: number; has(symbol: string): boolean };
  /**
   * The number of candidates q is a quantile of, when the method ranks more than the network's
   * sources (model v4 with evidence layers): q = rank / (scale − 1), capped at 1, the share of the
   * network's candidate list a reader goes through before reaching the protein. Adding candidates
   * below the driver then changes nothing and adding them above it costs, so a wider candidate
   * set is judged on the same scale as the methods that rank the sources only.
   */
  qScale?: number;
}

export interface RankingMethod {
  /** The `method` of cases.json: a model version's name, or a baseline's (`out_degree`, ...). */
  readonly name: string;
  /** Whether the method can rank this case (ULM needs a signed list or a table); default: always. */
  appliesTo?(c: PreparedCase): boolean;
  /** Ranks the candidates; synchronous and fast (milliseconds to a second): called once per case. */
  rank(c: PreparedCase): Ranking;
}

/** What methods may load once per run, shared between them. */
export interface ValidationContext {
  /** The influence bundle of the default network under a walk, built or read from the cache once per walk. */
  bundle(walk: WalkParams): Promise<Model>;
  /** The v1 bundle (α = ρ = 0.5, h = 0): the candidates S and the graph the baselines read. */
  primary: Model;
  /** `--libraries DIR` (../shared/data/libraries layout), for library integration methods; null when not given. */
  librariesDir: string | null;
  /** `--ppi FILE`s: protein–protein interaction pair files, further evidence layers of the versions that read layers. */
  ppiFiles: readonly string[];
}

/** Makes a run's methods once (loading what they need); returns none when not applicable (e.g. no libraries). */
export type MethodFactory = (ctx: ValidationContext) => Promise<RankingMethod[]>;

/** The q of §16.2 (rank quantile, 0 best) of a rank among n candidates (capped at 1: see `qScale`). */
export const quantileOf = (rank: number, n: number): number => (n > 1 ? Math.min(1, rank / (n - 1)) : 0);

/** A ranking over the bundle's sources S from one score per source (higher is better), mid-rank ties. */
export function rankingFromScores(model: Model, scores: ArrayLike<number>): Ranking {
  return {
    candidates: model.sourceSymbols,
    ranks: midRanks(scores),
    indexOf: (s) => model.sourceIndex(s),
  };
}

/** 0-based mid-ranks of scores (higher is better); −∞ (no evidence) ties with −∞, NaN ranks last. */
export function midRanks(scores: ArrayLike<number>): Float64Array {
  const m = scores.length;
  const key = (i: number): number => (Number.isNaN(scores[i]!) ? -Infinity : scores[i]!);
  // A comparison, not a difference: −∞ − −∞ is NaN.
  const order = Array.from({ length: m }, (_, i) => i).sort((a, b) =>
    key(b) > key(a) ? 1 : key(b) < key(a) ? -1 : 0,
  );
  const out = new Float64Array(m);
  for (let i = 0; i < m;) {
    let j = i;
    while (j + 1 < m && key(order[j + 1]!) === key(order[i]!)) j++;
    const mid = (i + j) / 2;
    for (let x = i; x <= j; x++) out[order[x]!] = mid;
    i = j + 1;
  }
  return out;
}
