/** Intermediary proteins of kept causal paths (model.md §10.7); free of model objects. */

/** The columns of a causal_paths.tsv row that the aggregation reads. */
export interface PathRowLike {
  deg: string;
  path: string;
  score_path_given_target: number | null;
}

/** Options of `intermediaryProteins`. */
export interface IntermediaryOptions {
  /** Restrict to the first `topNDegs` DEGs of D_t. */
  topNDegs: number;
  /** A DEG (`SYMBOL|RNA` or symbol): only its best path is used. */
  deg?: string | null;
  /** D_t symbols in order (degs_impacted.json `degs`). */
  impactedDegOrder: readonly string[];
}

/** At most this many rows are scanned (§10.7). */
export const MAX_SCANNED_ROWS = 50_000;

const interior = (path: string): string[] => path.split(">").slice(1, -1);

/**
 * Interior nodes of the scanned paths, ordered by their summed path score (descending, ties by
 * symbol), and the number of scanned paths that have at least one interior node.
 */
export function intermediaryProteins(
  rows: readonly PathRowLike[],
  options: IntermediaryOptions,
): { proteins: string[]; n_paths_used: number } {
  const top = new Set(options.impactedDegOrder.slice(0, options.topNDegs));
  let scanned: PathRowLike[];
  if (options.deg !== undefined && options.deg !== null) {
    const bar = options.deg.lastIndexOf("|");
    const symbol = bar >= 0 ? options.deg.slice(0, bar) : options.deg;
    if (!top.has(symbol)) return { proteins: [], n_paths_used: 0 };
    let best: PathRowLike | null = null;
    for (const row of rows) {
      if (row.deg !== symbol) continue;
      if (
        best === null ||
        (row.score_path_given_target ?? -Infinity) > (best.score_path_given_target ?? -Infinity)
      )
        best = row;
    }
    scanned = best ? [best] : [];
  } else {
    scanned = [];
    for (const row of rows) {
      if (scanned.length >= MAX_SCANNED_ROWS) break;
      if (top.has(row.deg)) scanned.push(row);
    }
  }
  const sums = new Map<string, number>();
  let used = 0;
  for (const row of scanned) {
    const nodes = interior(row.path);
    if (nodes.length === 0) continue;
    used++;
    for (const s of new Set(nodes)) sums.set(s, (sums.get(s) ?? 0) + (row.score_path_given_target ?? 0));
  }
  const proteins = [...sums.entries()]
    .sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0))
    .map(([s]) => s);
  return { proteins, n_paths_used: used };
}
