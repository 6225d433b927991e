import type { FilterResult, PseudoBulk } from "./types.ts";
import { median } from "./stats.ts";

/** edgeR `filterByExpr` defaults (model.md §5.2). */
export const FILTER_DEFAULTS = { minCount: 10, minTotalCount: 15, largeN: 10, minProp: 0.7 } as const;

/** edgeR compares with this slack so that integer-valued cutoffs are not lost to rounding. */
const TOL = 1e-14;

/**
 * edgeR's `filterByExpr(y, group = arm)`: keeps a gene when its CPM reaches
 * `min.count / median(L) · 1e6` in at least the smallest arm's sample count (shrunk towards
 * `large.n` for big arms) and its total count reaches `min.total.count`. It ignores which arm
 * the high counts are in, so it is an independent filter.
 */
export function filterByExpr(pb: PseudoBulk): FilterResult {
  const m = pb.samples.length;
  const nGenes = pb.genes.length;
  const lib = new Float64Array(m);
  for (let g = 0; g < nGenes; g++) for (let j = 0; j < m; j++) lib[j]! += pb.counts[g * m + j]!;
  const armSizes = [0, 0];
  for (const s of pb.samples) armSizes[s.arm]!++;
  let minSampleSize = Math.min(...armSizes.filter((n) => n > 0));
  if (minSampleSize > FILTER_DEFAULTS.largeN)
    minSampleSize =
      FILTER_DEFAULTS.largeN + (minSampleSize - FILTER_DEFAULTS.largeN) * FILTER_DEFAULTS.minProp;
  const medianLibSize = median(lib);
  const cpmCutoff = (FILTER_DEFAULTS.minCount / medianLibSize) * 1e6;
  const keep: boolean[] = new Array<boolean>(nGenes);
  let nKept = 0;
  for (let g = 0; g < nGenes; g++) {
    let above = 0;
    let total = 0;
    for (let j = 0; j < m; j++) {
      const k = pb.counts[g * m + j]!;
      total += k;
      if ((k / lib[j]!) * 1e6 >= cpmCutoff) above++;
    }
    keep[g] = above >= minSampleSize - TOL && total >= FILTER_DEFAULTS.minTotalCount - TOL;
    if (keep[g]) nKept++;
  }
  return { keep, nKept, cpmCutoff, minSampleSize, medianLibSize };
}
