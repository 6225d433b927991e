/**
 * Scores prepared cases with every ranking method and records, per (case, method), the q of
 * model.md §16.2 and the q of every symbol that is some case's expected target (for the
 * popularity-free per-target AUROC, summary.ts).
 */
import { JobFailure } from "@causeway/contract";
import type { PreparedCase, Ranking, RankingMethod } from "./methods/method.ts";
import { quantileOf } from "./methods/method.ts";

/** One record of cases.json. */
export interface CaseRecord {
  id: string;
  source: string;
  method: string;
  /** Rank quantile of the expected target (0 best); null when the method does not rank it. */
  q: number | null;
  /** 0-based rank of the expected target (mid-rank for ties); null when not ranked. */
  rank: number | null;
  n_candidates: number;
  /** q of every expected target of the run's cases that the method ranks, by symbol. */
  q_targets: Record<string, number>;
  /** q* of §16.2: the smallest q among the case's accepted targets; null when none is ranked. */
  q_star: number | null;
  /** Size of the method's 90 % prediction set, when it reports one. */
  set_size?: number;
  /** Whether that set holds the expected target or another accepted one (null when the method does not rank the expected one). */
  set_holds_driver?: boolean | null;
}

/** Rounded so cases.json stays small; 1e-7 is far below 1/|S|. */
const round = (q: number): number => Math.round(q * 1e7) / 1e7;

/** Records of one case under every method that applies to it, in method order. */
export function scoreCase(
  c: PreparedCase,
  methods: readonly RankingMethod[],
  targets: readonly string[],
  /** Accumulates each method's seconds, when given. */
  seconds?: Map<string, number>,
  /** Told about a method that could not rank a case (its record has no rank). */
  onError?: (c: PreparedCase, method: string, why: string) => void,
): CaseRecord[] {
  const out: CaseRecord[] = [];
  for (const m of methods) {
    if (m.appliesTo && !m.appliesTo(c)) continue;
    const t0 = performance.now();
    let r: Ranking;
    try {
      r = m.rank(c);
    } catch (err) {
      // A case the product would refuse (e.g. too_few_mapped_degs) is a record without a rank,
      // not the end of a run over hundreds of cases.
      const why = err instanceof JobFailure ? err.code : err instanceof Error ? err.message : String(err);
      onError?.(c, m.name, why);
      out.push({
        id: c.id,
        source: c.source,
        method: m.name,
        q: null,
        rank: null,
        n_candidates: 0,
        q_targets: {},
        q_star: null,
      });
      continue;
    } finally {
      seconds?.set(m.name, (seconds.get(m.name) ?? 0) + (performance.now() - t0) / 1000);
    }
    const n = r.qScale ?? r.candidates.length;
    const at = (s: string): number | null => {
      const i = r.indexOf(s);
      return i < 0 ? null : r.ranks[i]!;
    };
    const rank = at(c.expected);
    const qTargets: Record<string, number> = {};
    for (const t of targets) {
      const rt = at(t);
      if (rt !== null) qTargets[t] = round(quantileOf(rt, n));
    }
    out.push({
      id: c.id,
      source: c.source,
      method: m.name,
      q: rank === null ? null : quantileOf(rank, n),
      q_star: qStar(c.accepted, at, n),
      rank,
      n_candidates: r.candidates.length,
      q_targets: qTargets,
      ...(r.predictionSet
        ? {
            set_size: r.predictionSet.size,
            // A ligand experiment's accepted answers (the ligand or a receptor) count, as q* counts them.
            set_holds_driver: rank === null ? null : c.accepted.some((a) => r.predictionSet!.has(a)),
          }
        : {}),
    });
  }
  return out;
}

function qStar(accepted: readonly string[], at: (s: string) => number | null, n: number): number | null {
  let best: number | null = null;
  for (const a of accepted) {
    const r = at(a);
    if (r !== null && (best === null || r < best)) best = r;
  }
  return best === null ? null : quantileOf(best, n);
}
