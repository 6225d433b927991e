/**
 * Transition probabilities of model.md §6.3 and the walk matrices Q and R of §6.4, in CSR form.
 * Node indices are global (all nodes in byte order); PROTEIN and RNA nodes also have an index
 * within their layer, which is what the influence bundle's rows and columns use.
 */
import type { EdgeType, Network } from "./network.ts";

/** Numbers that define the walk (part of `model_version`). */
export interface WalkParams {
  /** Stopping probability per protein step (§6.4), v1 0.5. */
  alpha: number;
  /** Share of a protein's mass sent to its transcriptional edges when it has both kinds (§6.3), v1 0.5. */
  rho: number;
  /** Hub-penalty exponent `h` of §6.2, v1 0. */
  hubExponent: number;
}

/** Model v1 walk parameters. */
export const V1_WALK: WalkParams = { alpha: 0.5, rho: 0.5, hubExponent: 0 };

/** Edge type codes in `TransitionGraph.edgeType`. */
export const EDGE_TYPE_CODE: Record<EdgeType, number> = { signaling: 0, transcriptional: 1 };
/** Edge type names by code. */
export const EDGE_TYPE_NAME: readonly EdgeType[] = ["signaling", "transcriptional"];

/** Compressed sparse rows: row `i` holds `indices/data[indptr[i] .. indptr[i+1])`. */
export interface Csr {
  nRows: number;
  nCols: number;
  indptr: Int32Array;
  indices: Int32Array;
  data: Float64Array;
}

/** The interactome as the walk sees it: P over all nodes (RNA rows empty) with edge attributes. */
export interface TransitionGraph {
  nodeIds: string[];
  /** 1 for RNA nodes. */
  isRna: Uint8Array;
  /** Index of each global node within its layer (V_P or V_R). */
  layerIndex: Int32Array;
  /** Global node index of each protein, in V_P order. */
  proteinNodes: Int32Array;
  /** Global node index of each RNA node, in V_R order. */
  rnaNodes: Int32Array;
  /** P(u,v) over global nodes; targets ascending within each row. */
  p: Csr;
  /** Per edge of `p`: sign (−1, 0, +1), type code, resource and evidence strings. */
  sign: Int8Array;
  edgeType: Uint8Array;
  resource: string[];
  evidence: string[];
}

/**
 * Which nodes are RNA (the `|RNA` layer) and each node's index within its layer, in node order:
 * the same for a graph built from a network and one read back from a bundle.
 */
export function nodeLayers(nodeIds: readonly string[]): {
  isRna: Uint8Array;
  layerIndex: Int32Array;
  proteins: number[];
  rnas: number[];
} {
  const n = nodeIds.length;
  const isRna = new Uint8Array(n);
  const layerIndex = new Int32Array(n);
  const proteins: number[] = [];
  const rnas: number[] = [];
  nodeIds.forEach((id, i) => {
    const rna = id.endsWith("|RNA");
    isRna[i] = rna ? 1 : 0;
    layerIndex[i] = rna ? rnas.length : proteins.length;
    (rna ? rnas : proteins).push(i);
  });
  return { isRna, layerIndex, proteins, rnas };
}

/** Builds P (§6.3) from a parsed network; hub penalty `w·indeg(v)^(−h)` applied when h ≠ 0. */
export function buildTransitionGraph(network: Network, params: WalkParams): TransitionGraph {
  const { nodeIds, edges } = network;
  const n = nodeIds.length;
  const index = new Map<string, number>();
  nodeIds.forEach((id, i) => index.set(id, i));
  const { isRna, layerIndex, proteins, rnas } = nodeLayers(nodeIds);

  const indeg = new Float64Array(n);
  for (const e of edges) indeg[index.get(e.target)!]! += 1;

  const m = edges.length;
  const indptr = new Int32Array(n + 1);
  const indices = new Int32Array(m);
  const weight = new Float64Array(m);
  const sign = new Int8Array(m);
  const edgeType = new Uint8Array(m);
  const resource: string[] = new Array<string>(m);
  const evidence: string[] = new Array<string>(m);
  // Edges arrive sorted by (source, target) and node ids are sorted, so rows fill in order.
  edges.forEach((e, k) => {
    const u = index.get(e.source)!;
    const v = index.get(e.target)!;
    indptr[u + 1]! += 1;
    indices[k] = v;
    weight[k] = params.hubExponent === 0 ? e.weight : e.weight * Math.pow(indeg[v]!, -params.hubExponent);
    sign[k] = e.sign;
    edgeType[k] = EDGE_TYPE_CODE[e.edgeType];
    resource[k] = e.resource;
    evidence[k] = e.evidence;
  });
  for (let i = 0; i < n; i++) indptr[i + 1]! += indptr[i]!;

  const prob = new Float64Array(m);
  for (let u = 0; u < n; u++) {
    let wP = 0;
    let wR = 0;
    for (let k = indptr[u]!; k < indptr[u + 1]!; k++) {
      if (edgeType[k] === 0) wP += weight[k]!;
      else wR += weight[k]!;
    }
    const shareP = wR > 0 ? 1 - params.rho : 1;
    const shareR = wP > 0 ? params.rho : 1;
    for (let k = indptr[u]!; k < indptr[u + 1]!; k++) {
      prob[k] = edgeType[k] === 0 ? (shareP * weight[k]!) / wP : (shareR * weight[k]!) / wR;
    }
  }

  return {
    nodeIds,
    isRna,
    layerIndex,
    proteinNodes: Int32Array.from(proteins),
    rnaNodes: Int32Array.from(rnas),
    p: { nRows: n, nCols: n, indptr, indices, data: prob },
    sign,
    edgeType,
    resource,
    evidence,
  };
}

/** Q = (1−α)·P on PROTEIN→PROTEIN and R = (1−α)·P on PROTEIN→RNA, indexed by layer (§6.4). */
export function walkMatrices(graph: TransitionGraph, alpha: number): { q: Csr; r: Csr } {
  const nP = graph.proteinNodes.length;
  const nR = graph.rnaNodes.length;
  const { indptr, indices, data } = graph.p;
  const qPtr = new Int32Array(nP + 1);
  const rPtr = new Int32Array(nP + 1);
  for (let i = 0; i < nP; i++) {
    const u = graph.proteinNodes[i]!;
    let nq = 0;
    for (let k = indptr[u]!; k < indptr[u + 1]!; k++) if (graph.isRna[indices[k]!] === 0) nq++;
    qPtr[i + 1] = qPtr[i]! + nq;
    rPtr[i + 1] = rPtr[i]! + (indptr[u + 1]! - indptr[u]! - nq);
  }
  const q: Csr = {
    nRows: nP,
    nCols: nP,
    indptr: qPtr,
    indices: new Int32Array(qPtr[nP]!),
    data: new Float64Array(qPtr[nP]!),
  };
  const r: Csr = {
    nRows: nP,
    nCols: nR,
    indptr: rPtr,
    indices: new Int32Array(rPtr[nP]!),
    data: new Float64Array(rPtr[nP]!),
  };
  for (let i = 0; i < nP; i++) {
    const u = graph.proteinNodes[i]!;
    let kq = qPtr[i]!;
    let kr = rPtr[i]!;
    for (let k = indptr[u]!; k < indptr[u + 1]!; k++) {
      const v = indices[k]!;
      const value = (1 - alpha) * data[k]!;
      if (graph.isRna[v] === 0) {
        q.indices[kq] = graph.layerIndex[v]!;
        q.data[kq++] = value;
      } else {
        r.indices[kr] = graph.layerIndex[v]!;
        r.data[kr++] = value;
      }
    }
  }
  return { q, r };
}
