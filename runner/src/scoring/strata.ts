/**
 * Strata of the matched randomization (model.md §8.2): deciles of log10 B(g) crossed with
 * quintiles of log10(mean_cp10k + 0.01), plus one bin for genes without expression data;
 * strata with fewer genes than DEGs are merged with neighbours until large enough.
 */

/** Bins of log10 B(g) (deciles) and of log10(mean_cp10k + 0.01) (quintiles). */
export const B_BINS = 10;
/** Expression quintiles. */
export const EXPR_BINS = 5;
/** Expression bin of genes without expression data. */
export const NO_EXPR_BIN = EXPR_BINS;
const COLS = EXPR_BINS + 1;

/** A group of merged strata: its universe positions and how many DEGs it holds. */
export interface StratumGroup {
  /** Stratum codes `bBin * 6 + exprBin` merged into this group. */
  strata: number[];
  genes: Int32Array;
  nDegs: number;
}

/**
 * Quantile bins by rank: a value's bin is floor(bins · r / m) where r is the number of values
 * strictly below it, so equal values always share a bin.
 */
export function quantileBins(values: ArrayLike<number>, bins: number): Int32Array {
  const m = values.length;
  const order = Array.from({ length: m }, (_, i) => i).sort((a, b) => values[a]! - values[b]! || a - b);
  const out = new Int32Array(m);
  let below = 0;
  for (let r = 0; r < m; r++) {
    if (r > 0 && values[order[r]!]! !== values[order[r - 1]!]!) below = r;
    out[order[r]!] = Math.min(bins - 1, Math.floor((bins * below) / m));
  }
  return out;
}

/**
 * Groups universe genes into strata and merges deficient ones: first with the neighbouring
 * expression bin (same B bin), then with the neighbouring B bin, lowest stratum code first.
 */
export function buildStrata(
  baseline: ArrayLike<number>,
  expression: ReadonlyArray<number | null>,
  isDeg: Uint8Array,
): StratumGroup[] {
  const m = baseline.length;
  const bBin = quantileBins(
    Array.from(baseline, (b) => Math.log10(b)),
    B_BINS,
  );
  const measured: number[] = [];
  for (let i = 0; i < m; i++) if (expression[i] !== null && expression[i] !== undefined) measured.push(i);
  const eBinMeasured = quantileBins(
    measured.map((i) => Math.log10(expression[i]! + 0.01)),
    EXPR_BINS,
  );
  const code = new Int32Array(m).fill(-1);
  for (let i = 0; i < m; i++) code[i] = bBin[i]! * COLS + NO_EXPR_BIN;
  measured.forEach((i, k) => (code[i] = bBin[i]! * COLS + eBinMeasured[k]!));

  const nCodes = B_BINS * COLS;
  const size = new Int32Array(nCodes);
  const degs = new Int32Array(nCodes);
  for (let i = 0; i < m; i++) {
    size[code[i]!]!++;
    if (isDeg[i]) degs[code[i]!]!++;
  }
  // Union-find over stratum codes; the root is always the smallest code of a group.
  const parent = Int32Array.from({ length: nCodes }, (_, i) => i);
  const find = (x: number): number => {
    while (parent[x] !== x) x = parent[x] = parent[parent[x]!]!;
    return x;
  };
  const union = (a: number, b: number): void => {
    const ra = find(a);
    const rb = find(b);
    if (ra === rb) return;
    const [lo, hi] = ra < rb ? [ra, rb] : [rb, ra];
    parent[hi] = lo;
    size[lo]! += size[hi]!;
    degs[lo]! += degs[hi]!;
  };
  const exprNeighbours = (c: number): number[] => {
    const b = Math.floor(c / COLS);
    const e = c % COLS;
    if (e === NO_EXPR_BIN) return [];
    return [e + 1, e - 1].filter((x) => x >= 0 && x < EXPR_BINS).map((x) => b * COLS + x);
  };
  const bNeighbours = (c: number): number[] => {
    const b = Math.floor(c / COLS);
    const e = c % COLS;
    return [b + 1, b - 1].filter((x) => x >= 0 && x < B_BINS).map((x) => x * COLS + e);
  };
  for (let changed = true; changed;) {
    changed = false;
    for (let c = 0; c < nCodes; c++) {
      const root = find(c);
      if (root !== c || size[root]! >= degs[root]!) continue;
      const members = Array.from({ length: nCodes }, (_, x) => x).filter((x) => find(x) === root);
      // Expression neighbours of every member first, then B neighbours.
      const candidates = [...members.flatMap(exprNeighbours), ...members.flatMap(bNeighbours)];
      const target = candidates.find((y) => find(y) !== root);
      if (target === undefined) continue;
      union(root, target);
      changed = true;
    }
  }
  const byRoot = new Map<number, { strata: number[]; genes: number[] }>();
  for (let c = 0; c < nCodes; c++) {
    const r = find(c);
    if (!byRoot.has(r)) byRoot.set(r, { strata: [], genes: [] });
    byRoot.get(r)!.strata.push(c);
  }
  for (let i = 0; i < m; i++) byRoot.get(find(code[i]!))!.genes.push(i);
  return [...byRoot.entries()]
    .sort((a, b) => a[0] - b[0])
    .map(([root, g]) => ({ strata: g.strata, genes: Int32Array.from(g.genes), nDegs: degs[root]! }))
    .filter((g) => g.genes.length > 0);
}
