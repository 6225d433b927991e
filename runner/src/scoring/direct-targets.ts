/**
 * Direct-target evidence of model v2 (docs/model-v2.md): for every candidate, the overlap of
 * its own transcriptional targets with the DEGs (IPA's upstream-regulator overlap p-value) and
 * an IPA-style activation z from the edge signs and the DEGs' fold-change signs, weighted by the
 * network's edge confidence. Uses only the transition graph, so it needs nothing beyond a v1
 * bundle.
 */
import normalCdf from "@stdlib/stats-base-dists-normal-cdf";
import type { Model } from "../model/index.ts";
import { logHypergeomUpperTail } from "./hypergeometric.ts";

/** Per source (bundle row order). */
export interface DirectEvidence {
  /** Direct transcriptional targets in the universe. */
  nTargets: Int32Array;
  /** Of those, DEGs. */
  nTargetDegs: Int32Array;
  /** Right-tailed hypergeometric p of the overlap; NaN when the source has no target in U. */
  pOverlap: Float64Array;
  /** Σ w·sign(edge)·sign(log2FC) / sqrt(Σ w²) over signed edges into DEGs with a fold change; NaN when none. */
  activationZ: Float64Array;
  /** Two-sided normal p of |activationZ|, so a global sign flip of the fold changes leaves it unchanged; NaN when none. */
  pDirection: Float64Array;
}

/** Inputs over the job's universe: model RNA index, DEG flag and log2FC (NaN when unknown) per position. */
export interface UniverseView {
  genes: Int32Array;
  isDeg: Uint8Array;
  log2fc: Float64Array;
  n: number;
}

/**
 * Computes the direct-target evidence. An edge's confidence is its share of the source's
 * transcriptional transition mass relative to the source's heaviest such edge (w/max w), which
 * is 1 for every edge of an unweighted network and the A/B/C weights for DoRothEA.
 */
export function directEvidence(
  model: Model,
  view: UniverseView,
  /** ln(i!) up to |U| (logFactorials). */
  lf: Float64Array,
): DirectEvidence {
  const nS = model.nSources;
  const N = view.genes.length;
  const posOfRna = new Int32Array(model.nRna).fill(-1);
  view.genes.forEach((j, u) => (posOfRna[j] = u));
  const { indptr, indices, data } = model.graph.p;
  const { isRna, layerIndex, sign } = model.graph;
  const out: DirectEvidence = {
    nTargets: new Int32Array(nS),
    nTargetDegs: new Int32Array(nS),
    pOverlap: new Float64Array(nS).fill(NaN),
    activationZ: new Float64Array(nS).fill(NaN),
    pDirection: new Float64Array(nS).fill(NaN),
  };
  for (let s = 0; s < nS; s++) {
    const u = model.graph.proteinNodes[model.sourceProteins[s]!]!;
    let maxW = 0;
    for (let e = indptr[u]!; e < indptr[u + 1]!; e++)
      if (isRna[indices[e]!] === 1) maxW = Math.max(maxW, data[e]!);
    if (maxW === 0) continue;
    let K = 0;
    let k = 0;
    let num = 0;
    let den = 0;
    for (let e = indptr[u]!; e < indptr[u + 1]!; e++) {
      const v = indices[e]!;
      if (isRna[v] !== 1) continue;
      const pos = posOfRna[layerIndex[v]!]!;
      if (pos < 0) continue;
      K++;
      if (view.isDeg[pos] !== 1) continue;
      k++;
      const fc = view.log2fc[pos]!;
      const sg = sign[e]!;
      if (sg === 0 || !Number.isFinite(fc) || fc === 0) continue;
      const w = data[e]! / maxW;
      num += w * sg * Math.sign(fc);
      den += w * w;
    }
    out.nTargets[s] = K;
    out.nTargetDegs[s] = k;
    if (K > 0) out.pOverlap[s] = Math.exp(logHypergeomUpperTail(k, N, K, view.n, lf));
    if (den > 0) {
      const z = num / Math.sqrt(den);
      out.activationZ[s] = z;
      out.pDirection[s] = Math.min(1, 2 * normalCdf(-Math.abs(z), 0, 1));
    }
  }
  return out;
}
