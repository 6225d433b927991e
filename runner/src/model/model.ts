/**
 * A loaded model version: the interactome as transition graph, the influence bundle and the
 * symbol table, with the look-ups that scoring (§7) and causal analysis (§10) need.
 */
import type { EvidenceLayer } from "../libraries/gmt.ts";
import type { SymbolTable } from "../symbols/index.ts";
import { influenceRow } from "./influence.ts";
import type { ModelManifest } from "./manifest.ts";
import { walkMatrices, type Csr, type TransitionGraph } from "./transition.ts";

/** The parts a Model is assembled from (built in memory or read from a store). */
export interface ModelParts {
  manifest: ModelManifest;
  symbols: SymbolTable;
  graph: TransitionGraph;
  /** Protein-layer index of each source in S, ascending. */
  sourceProteins: Int32Array;
  /** I on S × V_R, row-major float32. */
  influence: Float32Array;
  /** B over V_R. */
  baseline: Float64Array;
  /** Gene-set libraries stored with the version (model v3's evidence layers); none when absent. */
  layers?: readonly EvidenceLayer[];
}

const symbolOfId = (id: string): string => id.slice(0, id.lastIndexOf("|"));

/** The model of one version, shared read-only by every job of a runner process. */
export class Model {
  readonly manifest: ModelManifest;
  readonly symbols: SymbolTable;
  /** P over all nodes with signs, edge types and evidence (for the path search). */
  readonly graph: TransitionGraph;
  /** Symbols of V_P and V_R in layer order (byte order). */
  readonly proteinSymbols: readonly string[];
  readonly rnaSymbols: readonly string[];
  /** Symbols of the candidate sources S in bundle row order (byte order). */
  readonly sourceSymbols: readonly string[];
  readonly sourceProteins: Int32Array;
  readonly influence: Float32Array;
  readonly baseline: Float64Array;
  /** α of the walk. */
  readonly alpha: number;
  /** Evidence layers of the version (gene-set libraries), in manifest order. */
  readonly layers: readonly EvidenceLayer[];
  private readonly rnaIndexBySymbol: Map<string, number>;
  private readonly proteinIndexBySymbol: Map<string, number>;
  private readonly sourceIndexBySymbol: Map<string, number>;
  private walk: { q: Csr; r: Csr } | null = null;

  constructor(parts: ModelParts) {
    this.manifest = parts.manifest;
    this.symbols = parts.symbols;
    this.graph = parts.graph;
    this.alpha = parts.manifest.alpha;
    this.layers = parts.layers ?? [];
    const ids = parts.graph.nodeIds;
    this.proteinSymbols = Array.from(parts.graph.proteinNodes, (i) => symbolOfId(ids[i]!));
    this.rnaSymbols = Array.from(parts.graph.rnaNodes, (i) => symbolOfId(ids[i]!));
    this.sourceProteins = parts.sourceProteins;
    this.sourceSymbols = Array.from(parts.sourceProteins, (p) => this.proteinSymbols[p]!);
    this.influence = parts.influence;
    this.baseline = parts.baseline;
    this.rnaIndexBySymbol = new Map(this.rnaSymbols.map((s, i) => [s, i]));
    this.proteinIndexBySymbol = new Map(this.proteinSymbols.map((s, i) => [s, i]));
    this.sourceIndexBySymbol = new Map(this.sourceSymbols.map((s, i) => [s, i]));
  }

  /** |V_R|, the width of an influence row. */
  get nRna(): number {
    return this.rnaSymbols.length;
  }

  /** |S|. */
  get nSources(): number {
    return this.sourceSymbols.length;
  }

  /** Index of `symbol|RNA` in V_R, or −1. */
  rnaIndex(symbol: string): number {
    return this.rnaIndexBySymbol.get(symbol) ?? -1;
  }

  /** Index of `symbol|PROTEIN` in V_P, or −1. */
  proteinIndex(symbol: string): number {
    return this.proteinIndexBySymbol.get(symbol) ?? -1;
  }

  /** Row of `symbol|PROTEIN` in the bundle (its index in S), or −1 when it reaches no RNA node. */
  sourceIndex(symbol: string): number {
    return this.sourceIndexBySymbol.get(symbol) ?? -1;
  }

  /** Global node index of an entity id in `graph`, or −1. */
  nodeIndex(symbol: string, type: "PROTEIN" | "RNA"): number {
    const i = type === "RNA" ? this.rnaIndex(symbol) : this.proteinIndex(symbol);
    if (i < 0) return -1;
    return type === "RNA" ? this.graph.rnaNodes[i]! : this.graph.proteinNodes[i]!;
  }

  /** The bundle row I(s,·) of a source (a view, not a copy). */
  sourceRow(sourceIdx: number): Float32Array {
    return this.influence.subarray(sourceIdx * this.nRna, (sourceIdx + 1) * this.nRna);
  }

  /**
   * I(t,·) for a protein: the bundle row when `t ∈ S`, zeros for other proteins of the model,
   * null when the model has no PROTEIN node for it.
   */
  influenceOf(symbol: string): Float32Array | null {
    const s = this.sourceIndex(symbol);
    if (s >= 0) return this.sourceRow(s);
    return this.proteinIndex(symbol) >= 0 ? new Float32Array(this.nRna) : null;
  }

  /** I(t,·) recomputed in float64 by vector iteration (§6.7), for use without a bundle. */
  influenceRow(symbol: string): Float64Array | null {
    const p = this.proteinIndex(symbol);
    if (p < 0) return null;
    const { q, r } = this.walkMatrices();
    return influenceRow(q, r, q.nRows, r.nCols, p, this.manifest.iterations);
  }

  /** Number of out-edges of `symbol|PROTEIN` (both kinds), 0 when absent. */
  outDegree(symbol: string): number {
    const u = this.nodeIndex(symbol, "PROTEIN");
    return u < 0 ? 0 : this.graph.p.indptr[u + 1]! - this.graph.p.indptr[u]!;
  }

  /** The same model with other evidence layers (command line and benchmarks: libraries from files). */
  withLayers(layers: readonly EvidenceLayer[]): Model {
    const { manifest, symbols, graph, sourceProteins, influence, baseline } = this;
    return new Model({ manifest, symbols, graph, sourceProteins, influence, baseline, layers });
  }

  /** Q and R of §6.4, built on first use. */
  walkMatrices(): { q: Csr; r: Csr } {
    this.walk ??= walkMatrices(this.graph, this.alpha);
    return this.walk;
  }
}
