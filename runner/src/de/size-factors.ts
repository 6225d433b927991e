import { median } from "./stats.ts";

/** Below this many genes positive in every sample the ratio method is too noisy (model.md §5.3). */
const MIN_GENES_FOR_RATIO = 100;

/** Size factors and the method that produced them. */
export interface SizeFactors {
  sizeFactors: Float64Array;
  method: "ratio" | "poscounts";
}

/** Per-sample median of `log K − logGeoMean` over genes with a finite geometric mean and K > 0. */
function medianRatios(
  counts: Float64Array,
  nGenes: number,
  m: number,
  logGeoMean: Float64Array,
): Float64Array {
  const sf = new Float64Array(m);
  for (let j = 0; j < m; j++) {
    const ratios: number[] = [];
    for (let g = 0; g < nGenes; g++) {
      const k = counts[g * m + j]!;
      if (Number.isFinite(logGeoMean[g]!) && k > 0) ratios.push(Math.log(k) - logGeoMean[g]!);
    }
    sf[j] = Math.exp(median(ratios));
  }
  return sf;
}

/** DESeq2's median-of-ratios over the genes positive in every sample (type "ratio"). */
export function ratioSizeFactors(counts: Float64Array, nGenes: number, m: number): Float64Array {
  const logGeoMean = new Float64Array(nGenes);
  for (let g = 0; g < nGenes; g++) {
    let s = 0;
    for (let j = 0; j < m; j++) s += Math.log(counts[g * m + j]!);
    logGeoMean[g] = s / m;
  }
  return medianRatios(counts, nGenes, m, logGeoMean);
}

/**
 * DESeq2's `poscounts`: geometric means over the positive counts (still divided by m, as
 * DESeq2 does), then rescaled to a geometric mean of 1.
 */
export function poscountsSizeFactors(counts: Float64Array, nGenes: number, m: number): Float64Array {
  const logGeoMean = new Float64Array(nGenes);
  for (let g = 0; g < nGenes; g++) {
    let s = 0;
    let any = false;
    for (let j = 0; j < m; j++) {
      const k = counts[g * m + j]!;
      if (k > 0) {
        s += Math.log(k);
        any = true;
      }
    }
    logGeoMean[g] = any ? s / m : Number.NEGATIVE_INFINITY;
  }
  const sf = medianRatios(counts, nGenes, m, logGeoMean);
  let meanLog = 0;
  for (let j = 0; j < m; j++) meanLog += Math.log(sf[j]!) / m;
  return sf.map((s) => s / Math.exp(meanLog));
}

/**
 * Size factors of model.md §5.3: median-of-ratios, or `poscounts` when fewer than 100 genes
 * are positive in every sample. `counts` is gene-major with `m` samples.
 */
export function estimateSizeFactors(counts: Float64Array, nGenes: number, m: number): SizeFactors {
  let allPositive = 0;
  for (let g = 0; g < nGenes; g++) {
    let ok = true;
    for (let j = 0; j < m && ok; j++) ok = counts[g * m + j]! > 0;
    if (ok) allPositive++;
  }
  return allPositive >= MIN_GENES_FOR_RATIO
    ? { sizeFactors: ratioSizeFactors(counts, nGenes, m), method: "ratio" }
    : { sizeFactors: poscountsSizeFactors(counts, nGenes, m), method: "poscounts" };
}
