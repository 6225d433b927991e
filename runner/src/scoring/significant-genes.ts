/**
 * Sig(s) of model.md §7.2 over every RNA node: the genes g with I(s,g) > 0 and F(s,g) = I/B >= f.
 * It depends only on the bundle and f, so it is computed once per model and f (one pass over the
 * bundle) and kept beside the model; a job then counts K_s and k_s over these lists (a few
 * percent of the bundle) instead of reading every I(s,g) of its universe.
 */
import type { Model } from "../model/index.ts";

/** Compressed rows: the RNA indices of Sig(s) are indices[indptr[s] .. indptr[s+1]), ascending. */
export interface SignificantGenes {
  indptr: Int32Array;
  indices: Int32Array;
}

const cache = new WeakMap<Model, Map<number, SignificantGenes>>();

export function significantGenes(model: Model, f: number): SignificantGenes {
  let byFold = cache.get(model);
  if (!byFold) cache.set(model, (byFold = new Map()));
  let sig = byFold.get(f);
  if (!sig) byFold.set(f, (sig = compute(model, f)));
  return sig;
}

function compute(model: Model, f: number): SignificantGenes {
  const nS = model.nSources;
  const nR = model.nRna;
  const { influence, baseline } = model;
  // The predicate of §7.2 exactly as written (a division, not f·B), so K_s and k_s stay
  // bit-for-bit those of model v1's reference values (§16.5).
  const isSig = (o: number, j: number): boolean => {
    const i = influence[o + j]!;
    return i > 0 && i / baseline[j]! >= f;
  };
  const indptr = new Int32Array(nS + 1);
  for (let s = 0; s < nS; s++) {
    const o = s * nR;
    let c = 0;
    for (let j = 0; j < nR; j++) if (isSig(o, j)) c++;
    indptr[s + 1] = indptr[s]! + c;
  }
  const indices = new Int32Array(indptr[nS]!);
  for (let s = 0, e = 0; s < nS; s++) {
    const o = s * nR;
    for (let j = 0; j < nR; j++) if (isSig(o, j)) indices[e++] = j;
  }
  return { indptr, indices };
}
