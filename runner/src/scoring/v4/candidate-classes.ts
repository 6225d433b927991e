/**
 * Where each of model v4's candidates sits, from the model version alone (its network and its
 * evidence layers), computed once per model: for a network source, whether it is a
 * transcription factor, how many signalling steps it sits above one, whether it heads a
 * signalling cascade (as ligands do) or is reached from such a head (as receptors are), and how
 * many TF and kinase libraries name it; for every candidate, its number of interaction partners
 * in the PPI layers. These are v4's class features (features.ts).
 */
import type { Model } from "../../model/index.ts";
import { v4Candidates } from "./candidates.ts";

/** Position features of each source of a model (bundle row order), computed once per model. */
export interface SourceClasses {
  isTf: Uint8Array;
  /** Signalling steps to the nearest transcription factor (0 for a TF, 255 when none). */
  steps: Uint8Array;
  apex: Uint8Array;
  belowApex: Uint8Array;
  signalingIn: Int32Array;
  signalingOut: Int32Array;
}

const classCache = new WeakMap<Model, SourceClasses>();

export function sourceClasses(model: Model): SourceClasses {
  const cached = classCache.get(model);
  if (cached) return cached;
  const g = model.graph;
  const nNodes = g.nodeIds.length;
  const { indptr, indices } = g.p;
  const tfNode = new Uint8Array(nNodes);
  const sigIn = new Int32Array(nNodes);
  const sigOut = new Int32Array(nNodes);
  for (let u = 0; u < nNodes; u++)
    for (let e = indptr[u]!; e < indptr[u + 1]!; e++) {
      const v = indices[e]!;
      if (g.isRna[v] === 1) tfNode[u] = 1;
      else {
        sigOut[u]!++;
        sigIn[v]!++;
      }
    }
  // Breadth-first over reversed signalling edges from every TF: steps to the nearest TF.
  const steps = new Uint8Array(nNodes).fill(255);
  const preds: number[][] = Array.from({ length: nNodes }, () => []);
  for (let u = 0; u < nNodes; u++)
    for (let e = indptr[u]!; e < indptr[u + 1]!; e++)
      if (g.isRna[indices[e]!] !== 1) preds[indices[e]!]!.push(u);
  let frontier: number[] = [];
  for (let u = 0; u < nNodes; u++)
    if (tfNode[u] === 1) {
      steps[u] = 0;
      frontier.push(u);
    }
  for (let d = 1; frontier.length > 0 && d < 255; d++) {
    const next: number[] = [];
    for (const v of frontier)
      for (const u of preds[v]!)
        if (steps[u] === 255) {
          steps[u] = d;
          next.push(u);
        }
    frontier = next;
  }
  const apexNode = new Uint8Array(nNodes);
  for (let u = 0; u < nNodes; u++)
    if (g.isRna[u] !== 1 && tfNode[u] === 0 && sigIn[u] === 0 && sigOut[u]! > 0) apexNode[u] = 1;
  const belowApexNode = new Uint8Array(nNodes);
  for (let u = 0; u < nNodes; u++)
    if (apexNode[u] === 1)
      for (let e = indptr[u]!; e < indptr[u + 1]!; e++) {
        const v = indices[e]!;
        if (g.isRna[v] !== 1 && tfNode[v] === 0) belowApexNode[v] = 1;
      }
  const nS = model.nSources;
  const out: SourceClasses = {
    isTf: new Uint8Array(nS),
    steps: new Uint8Array(nS),
    apex: new Uint8Array(nS),
    belowApex: new Uint8Array(nS),
    signalingIn: new Int32Array(nS),
    signalingOut: new Int32Array(nS),
  };
  for (let s = 0; s < nS; s++) {
    const u = g.proteinNodes[model.sourceProteins[s]!]!;
    out.isTf[s] = tfNode[u]!;
    out.steps[s] = steps[u]!;
    out.apex[s] = apexNode[u]!;
    out.belowApex[s] = belowApexNode[u]!;
    out.signalingIn[s] = sigIn[u]!;
    out.signalingOut[s] = sigOut[u]!;
  }
  classCache.set(model, out);
  return out;
}

const layerCounts = new WeakMap<Model, { tf: Int32Array; kinase: Int32Array }>();

/** Per source, how many TF layers and kinase layers of the model hold a set of it. */
export function layerMembership(model: Model): { tf: Int32Array; kinase: Int32Array } {
  const cached = layerCounts.get(model);
  if (cached) return cached;
  const tf = new Int32Array(model.nSources);
  const kinase = new Int32Array(model.nSources);
  for (const layer of model.layers)
    for (const reg of layer.sets.keys()) {
      const s = model.sourceIndex(reg);
      if (s >= 0 && layer.kind !== "ppi") (layer.kind === "kinase" ? kinase : tf)[s]!++;
    }
  const out = { tf, kinase };
  layerCounts.set(model, out);
  return out;
}

const ppiDegrees = new WeakMap<Model, Int32Array>();

/** Per v4 candidate, its most interaction partners in any PPI layer of the model (0 without one). */
export function ppiDegree(model: Model): Int32Array {
  const cached = ppiDegrees.get(model);
  if (cached) return cached;
  const cands = v4Candidates(model);
  const out = new Int32Array(cands.n);
  for (const layer of model.layers) {
    if (layer.kind !== "ppi") continue;
    for (const [protein, sets] of layer.sets) {
      const c = cands.indexOf(protein);
      if (c >= 0) for (const set of sets) out[c] = Math.max(out[c]!, set.length);
    }
  }
  ppiDegrees.set(model, out);
  return out;
}
