/**
 * The causal graph as the PNG draws it (runner/src/graph): the same selection of paths
 * (`selectGraph`: the first top-N impacted DEGs, 250-node cap), the same layers (`assignLayers`:
 * the target first, the DEGs last, each intermediary at its distance from the target) and the
 * same colours; positions are preset here. The PNG orders nodes within a layer with ELK, whose
 * bundle alone would exceed the page's JavaScript budget, so the order here comes from a few
 * barycentre sweeps (the classic Sugiyama heuristic) over the same layers.
 */
import { assignLayers } from "@causeway/runner/graph/layers";
import { CausalGraphInputs } from "@causeway/runner/graph/inputs";
import {
  selectGraph,
  type GraphEdge,
  type GraphNode,
  type GraphSelection,
} from "@causeway/runner/graph/select";
import { colourLimit, edgeColour, edgeWidth, labelColourOn, nodeFill } from "@causeway/runner/graph/style";

export interface PlacedGraphNode extends GraphNode {
  layer: number;
  x: number;
  y: number;
  fill: string;
  label: string;
}

export interface DrawnEdge extends GraphEdge {
  colour: string;
  width: number;
}

export interface GraphModel {
  selection: GraphSelection;
  nodes: PlacedGraphNode[];
  edges: DrawnEdge[];
  layers: number;
  colourLimit: number;
}

const LAYER_STEP = 260;
const ROW_PITCH = 38;
/**
 * A layer taller than this many rows is wrapped into staggered sub-columns. One column of 20+
 * DEGs is far taller than wide, so fitting the whole graph into the view shrank every label to a
 * few pixels; wrapping keeps the graph's aspect near the view's and the labels readable.
 */
export const MAX_ROWS = 10;
const SUB_COLUMN_STEP = 110;

/** Parses stored causal_graph_inputs.json; throws when it is not valid. */
export function parseInputs(json: unknown): CausalGraphInputs {
  return CausalGraphInputs.parse(json);
}

export function graphModel(inputs: CausalGraphInputs, topNDegs: number): GraphModel {
  const selection = selectGraph(inputs, topNDegs);
  const { layerOf, count } = assignLayers(selection);
  const layers: string[][] = Array.from({ length: count }, () => []);
  for (const n of selection.nodes) layers[layerOf.get(n.id) ?? 0]!.push(n.id);
  const preds = new Map<string, string[]>();
  const succs = new Map<string, string[]>();
  for (const e of selection.edges) {
    (preds.get(e.target) ?? preds.set(e.target, []).get(e.target)!).push(e.source);
    (succs.get(e.source) ?? succs.set(e.source, []).get(e.source)!).push(e.target);
  }
  const pos = new Map<string, number>();
  const setPositions = () => layers.forEach((l) => l.forEach((id, i) => pos.set(id, i - (l.length - 1) / 2)));
  setPositions();
  const mean = (ids: string[] | undefined, fallback: number) => {
    const known = (ids ?? []).map((i) => pos.get(i)).filter((v): v is number => v !== undefined);
    return known.length ? known.reduce((a, b) => a + b, 0) / known.length : fallback;
  };
  for (let sweep = 0; sweep < 4; sweep++) {
    const order =
      sweep % 2 === 0
        ? layers.map((_, i) => i).slice(1)
        : layers
            .map((_, i) => i)
            .slice(0, -1)
            .reverse();
    for (const li of order) {
      const neighbours = sweep % 2 === 0 ? preds : succs;
      layers[li]!.sort(
        (a, b) =>
          mean(neighbours.get(a), pos.get(a)!) - mean(neighbours.get(b), pos.get(b)!) || (a < b ? -1 : 1),
      );
      setPositions();
    }
  }
  const place = placeLayers(layers, pos);
  const limit = colourLimit(selection.nodes.map((n) => n.log2fc));
  const scores = selection.edges.map((e) => e.score);
  const lo = Math.min(...scores);
  const hi = Math.max(...scores);
  const nodes = selection.nodes.map((n) => {
    const fill = nodeFill(n.log2fc, limit);
    return {
      ...n,
      layer: layerOf.get(n.id) ?? 0,
      ...place.get(n.id)!,
      fill,
      label: labelColourOn(fill),
    };
  });
  const edges = selection.edges.map((e) => ({
    ...e,
    colour: edgeColour(e.sign),
    width: edgeWidth(e.score, lo, hi),
  }));
  return { selection, nodes, edges, layers: count, colourLimit: limit };
}

/**
 * Positions of the ordered layers, left to right. A layer of more than MAX_ROWS nodes takes its
 * nodes row by row across ceil(n / MAX_ROWS) sub-columns, so neighbours in the crossing-reduced
 * order stay at about the same height; later layers move right by the extra columns' width.
 */
function placeLayers(layers: string[][], pos: Map<string, number>): Map<string, { x: number; y: number }> {
  const placed = new Map<string, { x: number; y: number }>();
  let left = 0;
  for (const layer of layers) {
    const columns = Math.max(1, Math.ceil(layer.length / MAX_ROWS));
    if (columns === 1) {
      for (const id of layer) placed.set(id, { x: left, y: pos.get(id)! * ROW_PITCH });
    } else {
      const rows = Math.ceil(layer.length / columns);
      layer.forEach((id, i) => {
        const row = Math.floor(i / columns);
        placed.set(id, {
          x: left + (i % columns) * SUB_COLUMN_STEP,
          y: (row - (rows - 1) / 2) * ROW_PITCH,
        });
      });
    }
    left += (columns - 1) * SUB_COLUMN_STEP + LAYER_STEP;
  }
  return placed;
}

/** Every displayed path through a node, as the ordered symbols (for the node's panel). */
export function pathsThrough(
  inputs: CausalGraphInputs,
  model: GraphModel,
  nodeId: string,
): { symbols: string[]; score: number }[] {
  const shownDegs = new Set(model.nodes.filter((n) => n.kind === "deg").map((n) => n.id));
  return inputs.paths
    .filter((p) => shownDegs.has(p.deg) && p.nodes.includes(nodeId))
    .map((p) => ({ symbols: p.nodes.map((id) => id.split("|")[0]!), score: p.score_path_given_target }))
    .sort((a, b) => b.score - a.score);
}

const plural = (n: number, one: string, many = `${one}s`) =>
  `${n.toLocaleString("en")} ${n === 1 ? one : many}`;

/**
 * The graph in one sentence, its text alternative for screen readers: "Causal graph of STAT1:
 * 24 proteins, 31 edges, from STAT1 to 12 DEGs".
 */
export function graphSummary(model: GraphModel, title: string): string {
  const proteins = model.nodes.filter((n) => n.kind !== "deg").length;
  const degs = model.nodes.length - proteins;
  return (
    `Causal graph of ${title}: ${plural(proteins, "protein")}, ${plural(model.edges.length, "edge")}, ` +
    `from ${model.selection.target.symbol} to ${plural(degs, "DEG")}`
  );
}

/** What a node is called in the keyboard list: its kind in words. */
export const KIND_WORDS: Readonly<Record<string, string>> = {
  target: "target",
  intermediary: "intermediary protein",
  deg: "DEG",
};

/**
 * The graph's nodes in reading order, for the keyboard list that stands in for clicking them: the
 * target, then each layer left to right, top to bottom within a layer (the order the eye takes).
 */
export function nodesInReadingOrder(model: GraphModel): PlacedGraphNode[] {
  const rank = (n: PlacedGraphNode) => (n.kind === "target" ? 0 : 1);
  return [...model.nodes].sort(
    (a, b) => rank(a) - rank(b) || a.layer - b.layer || a.y - b.y || a.x - b.x || (a.id < b.id ? -1 : 1),
  );
}
