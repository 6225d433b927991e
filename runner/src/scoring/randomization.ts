/**
 * Matched random DEG sets and their counts k_{s,r} (model.md §8.2). Significance is kept as a
 * gene-major byte indicator (one contiguous row of |S| bytes per universe gene); a random set
 * is counted by adding its genes' rows four bytes at a time (a 32-bit add carries no lane
 * overflow for up to 255 rows, after which the lanes are flushed), never by random gathers.
 */
import { Xoshiro128ss, seedFrom } from "./prng.ts";
import type { StratumGroup } from "./strata.ts";

/** Per-candidate null statistics. */
export interface RandomizationStats {
  R: number;
  seedHex: string;
  /** Phipson–Smyth p = (1 + #{r: k_{s,r} ≥ k_s}) / (1 + R). */
  pvalue: Float64Array;
  /** (k_s − mean) / sd with the sample sd; null when sd = 0 or R < 2. */
  z: (number | null)[];
  mean: Float64Array;
  sd: Float64Array;
  nGe: Int32Array;
}

/** Gene-major significance indicator: row `g` = bytes `[g·stride, g·stride + nS)`, stride a multiple of 4. */
export interface SignificanceIndicator {
  nS: number;
  stride: number;
  bytes: Uint8Array;
}

/** Draws R matched sets and compares each candidate's count with its observed k_s. */
export function randomize(
  indicator: SignificanceIndicator,
  groups: readonly StratumGroup[],
  observedK: Int32Array,
  R: number,
  seedSource: string,
): RandomizationStats {
  const { seed, seedHex } = seedFrom(seedSource);
  const rng = new Xoshiro128ss(seed);
  const { nS, stride, bytes } = indicator;
  const words = stride / 4;
  const rows32 = new Uint32Array(bytes.buffer, bytes.byteOffset, bytes.byteLength / 4);
  const lanes = new Uint32Array(words);
  const lanes8 = new Uint8Array(lanes.buffer);
  const counts = new Int32Array(stride);
  const nGe = new Int32Array(nS);
  const sum = new Float64Array(nS);
  const sumSq = new Float64Array(nS);
  const pools = groups.map((g) => Int32Array.from(g.genes));

  for (let r = 0; r < R; r++) {
    counts.fill(0);
    lanes.fill(0);
    let inLanes = 0;
    const flush = (): void => {
      for (let i = 0; i < stride; i++) counts[i]! += lanes8[i]!;
      lanes.fill(0);
      inLanes = 0;
    };
    for (let h = 0; h < groups.length; h++) {
      const pool = pools[h]!;
      const c = groups[h]!.nDegs;
      // Partial Fisher–Yates: the first c slots become a uniform sample without replacement.
      for (let i = 0; i < c; i++) {
        const j = i + rng.nextBelow(pool.length - i);
        const g = pool[j]!;
        pool[j] = pool[i]!;
        pool[i] = g;
        const o = g * words;
        for (let w = 0; w < words; w++) lanes[w]! += rows32[o + w]!;
        if (++inLanes === 255) flush();
      }
    }
    flush();
    for (let s = 0; s < nS; s++) {
      const k = counts[s]!;
      if (k >= observedK[s]!) nGe[s]!++;
      sum[s]! += k;
      sumSq[s]! += k * k;
    }
  }

  const pvalue = new Float64Array(nS);
  const mean = new Float64Array(nS);
  const sd = new Float64Array(nS);
  const z: (number | null)[] = new Array<number | null>(nS);
  for (let s = 0; s < nS; s++) {
    pvalue[s] = (1 + nGe[s]!) / (1 + R);
    mean[s] = R > 0 ? sum[s]! / R : NaN;
    // Sums of integer counts are exact in float64, so the two-pass formula is not needed.
    const variance = R > 1 ? (sumSq[s]! - R * mean[s]! * mean[s]!) / (R - 1) : NaN;
    sd[s] = variance > 0 ? Math.sqrt(variance) : R > 1 ? 0 : NaN;
    z[s] = sd[s]! > 0 ? (observedK[s]! - mean[s]!) / sd[s]! : null;
  }
  return { R, seedHex, pvalue, z, mean, sd, nGe };
}
