/**
 * What the image shows (model.md §11 "Nodes", "Edges", "Cap"): the kept paths of the first
 * `top_n_degs` impacted DEGs, the union of their nodes, each edge once with its summed path
 * score, and the 250-node cap.
 */
import { symbolOf } from "@causeway/contract";
import type { CausalGraphInputs, EdgeSign, EdgeType } from "./inputs.ts";

/** At most this many nodes are drawn (§11 "Cap"). */
export const MAX_NODES = 250;

/** Target hexagon, intermediary ellipse or DEG rounded rectangle. */
export type NodeKind = "target" | "intermediary" | "deg";

/** A displayed node. */
export interface GraphNode {
  /** Entity id; `IRF1|PROTEIN` and `IRF1|RNA` are two nodes with the same label. */
  id: string;
  symbol: string;
  kind: NodeKind;
  /** The gene's log2 fold change, null when not measured. */
  log2fc: number | null;
}

/** A displayed edge, drawn once however many paths use it. */
export interface GraphEdge {
  /** `source>target` entity ids. */
  id: string;
  source: string;
  target: string;
  sign: EdgeSign;
  type: EdgeType;
  /** Sum of `score_path_given_target` over the displayed paths that use the edge. */
  score: number;
}

/** The displayed part of the graph and the counts the caption reports. */
export interface GraphSelection {
  target: GraphNode;
  /** Every displayed node, the target included, sorted by entity id. */
  nodes: GraphNode[];
  /** Every displayed edge, sorted by id. */
  edges: GraphEdge[];
  /** `N` of the title: `min(top_n_degs, |D_t|)`. */
  topN: number;
  /** DEGs with at least one displayed path. */
  degsShown: number;
  /** Top-N DEGs that have no kept path at all. */
  degsWithoutPath: number;
  pathsShown: number;
  /** Paths of top-N DEGs left out by the node cap. */
  pathsOmitted: number;
}

type Path = CausalGraphInputs["paths"][number];

/** Selects the displayed part of the graph for the first `topNDegs` DEGs of `D_t`. */
export function selectGraph(inputs: CausalGraphInputs, topNDegs: number): GraphSelection {
  const top = inputs.degs.slice(0, topNDegs);
  const pathsByDeg = new Map<string, Path[]>(top.map((d) => [d.id, []]));
  for (const path of inputs.paths) pathsByDeg.get(path.deg)?.push(path);

  // Node counts grow with every DEG added, so "drop DEGs from the end until it fits" is the
  // longest prefix of D_t that fits.
  const nodeIds = new Set<string>([inputs.target]);
  const shown: Path[] = [];
  let pathsOmitted = 0;
  let full = false;
  for (const deg of top) {
    const paths = pathsByDeg.get(deg.id)!;
    if (full) {
      pathsOmitted += paths.length;
      continue;
    }
    const added = new Set<string>();
    for (const p of paths) for (const n of p.nodes) if (!nodeIds.has(n)) added.add(n);
    if (nodeIds.size + added.size <= MAX_NODES) {
      for (const n of added) nodeIds.add(n);
      shown.push(...paths);
      continue;
    }
    full = true;
    if (shown.length === 0) {
      // The first DEG alone exceeds the cap (only with min_path_fraction near 0): an image of
      // nothing helps no one, so keep its paths in row order while they fit.
      let stopped = false;
      for (const p of paths) {
        const extra = new Set(p.nodes.filter((n) => !nodeIds.has(n)));
        if (!stopped && nodeIds.size + extra.size <= MAX_NODES) {
          for (const n of extra) nodeIds.add(n);
          shown.push(p);
        } else {
          stopped = true;
          pathsOmitted++;
        }
      }
    } else {
      pathsOmitted += paths.length;
    }
  }

  const degIds = new Set(shown.map((p) => p.deg));
  const kindOf = (id: string): NodeKind =>
    id === inputs.target ? "target" : degIds.has(id) ? "deg" : "intermediary";
  const nodeOf = (id: string): GraphNode => {
    const symbol = symbolOf(id);
    return { id, symbol, kind: kindOf(id), log2fc: inputs.log2fc[symbol] ?? null };
  };

  const edges = new Map<string, GraphEdge>();
  for (const p of shown) {
    for (let k = 0; k < p.nodes.length - 1; k++) {
      const source = p.nodes[k]!;
      const target = p.nodes[k + 1]!;
      const id = `${source}>${target}`;
      const edge = edges.get(id);
      if (edge) edge.score += p.score_path_given_target;
      else
        edges.set(id, {
          id,
          source,
          target,
          sign: p.edge_signs[k]!,
          type: p.edge_types[k]!,
          score: p.score_path_given_target,
        });
    }
  }

  return {
    target: nodeOf(inputs.target),
    nodes: [...nodeIds].sort(byCodeUnit).map(nodeOf),
    edges: [...edges.values()].sort((a, b) => byCodeUnit(a.id, b.id)),
    topN: top.length,
    degsShown: degIds.size,
    degsWithoutPath: top.filter((d) => pathsByDeg.get(d.id)!.length === 0).length,
    pathsShown: shown.length,
    pathsOmitted,
  };
}

/** Locale-independent string order, so images do not depend on the machine's locale. */
export function byCodeUnit(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}
