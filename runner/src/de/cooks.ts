import fQuantile from "@stdlib/stats-base-dists-f-quantile";
import type { Design } from "./types.ts";
import { trimmedMean } from "./stats.ts";

/** DESeq2 does not let a robust dispersion fall below this in Cook's distances. */
const ROBUST_MIN_DISP = 0.04;

/** Trim fraction and variance rescaling by cell size, from DESeq2's `trimmedCellVariance`. */
function trimFor(n: number): { trim: number; scale: number } {
  if (n <= 3.5) return { trim: 1 / 3, scale: 2.04 };
  if (n <= 23.5) return { trim: 1 / 4, scale: 1.86 };
  return { trim: 1 / 8, scale: 1.51 };
}

/** Samples in design cells with at least `n` samples (DESeq2 `nOrMoreInCell`). */
export function samplesInLargeCells(design: Design, n: number): boolean[] {
  const size = new Array<number>(design.nCells).fill(0);
  for (const c of design.cellOfSample) size[c]!++;
  return Array.from(design.cellOfSample, (c) => size[c]! >= n);
}

/**
 * DESeq2's `robustMethodOfMomentsDisp` for one gene's normalized counts `q`: a trimmed
 * within-cell variance (cells with ≥ 3 samples), or a trimmed overall variance when no cell
 * is that large, turned into a dispersion and floored at 0.04.
 */
export function robustDispersion(q: ArrayLike<number>, design: Design, large: boolean[]): number {
  const m = q.length;
  let v: number;
  if (large.some(Boolean)) {
    const cells = [...new Set(Array.from(design.cellOfSample).filter((_, j) => large[j]))];
    v = Number.NEGATIVE_INFINITY;
    for (const c of cells) {
      const vals: number[] = [];
      for (let j = 0; j < m; j++) if (design.cellOfSample[j] === c) vals.push(q[j]!);
      const { trim, scale } = trimFor(vals.length);
      const mean = trimmedMean(vals, trim);
      v = Math.max(
        v,
        scale *
          trimmedMean(
            vals.map((y) => (y - mean) ** 2),
            trim,
          ),
      );
    }
  } else {
    const vals = Array.from(q);
    const mean = trimmedMean(vals, 1 / 8);
    v =
      1.51 *
      trimmedMean(
        vals.map((y) => (y - mean) ** 2),
        1 / 8,
      );
  }
  let mean = 0;
  for (let j = 0; j < m; j++) mean += q[j]! / m;
  return Math.max((v - mean) / (mean * mean), ROBUST_MIN_DISP);
}

/** Cook's distances of one gene: Pearson residual² / p · h / (1 − h)². */
export function cooksDistances(
  y: ArrayLike<number>,
  mu: ArrayLike<number>,
  hat: ArrayLike<number>,
  robustAlpha: number,
  p: number,
): Float64Array {
  return Float64Array.from(y, (k, j) => {
    const u = mu[j]!;
    const h = hat[j]!;
    return ((k - u) ** 2 / (u + robustAlpha * u * u) / p) * (h / (1 - h) ** 2);
  });
}

/** The cutoff `qF(0.99; p, m − p)` of DESeq2's `cooksCutoff` (model.md §5.7). */
export function cooksCutoff(m: number, p: number): number {
  return fQuantile(0.99, p, m - p);
}
