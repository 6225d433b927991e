/**
 * Layered left-to-right layout (model.md §11 "Layout"). Layers are ours (layers.ts) and handed
 * to ELK's layered algorithm as partitions; ELK orders the nodes within layers to reduce
 * crossings and routes edges that skip layers. The result is then fitted into the frame the
 * size rule fixes: one layer step per layer, one row pitch per node of the largest layer.
 */
import elkBundled from "elkjs/lib/elk.bundled.js";
import type { ELK, ELKConstructorArguments, ElkExtendedEdge, ElkNode, ElkPoint } from "elkjs/lib/elk-api.js";
import { assignLayers } from "./layers.ts";
import { placeSlots, type Slot } from "./placement.ts";
import { byCodeUnit, type GraphEdge, type GraphNode, type GraphSelection } from "./select.ts";
import type { Size } from "./shapes.ts";
import { edgeWidth, GEOMETRY } from "./style.ts";

/** A point in base px. */
export interface Point {
  x: number;
  y: number;
}

/** A node with its layer, centre and size. */
export interface PlacedNode extends GraphNode {
  layer: number;
  /** Centre, in plot coordinates (base px from the plot's top-left corner). */
  x: number;
  y: number;
  size: Size;
}

/**
 * `forward` edges go to a later layer, `backward` ones to an earlier layer (possible when a path
 * revisits a shallower part of the graph), `same-layer` ones stay within a layer.
 */
export type EdgeDirection = "forward" | "backward" | "same-layer";

/** An edge with the points where it crosses intermediate layers. */
export interface RoutedEdge extends GraphEdge {
  direction: EdgeDirection;
  /** Where the edge crosses the layers strictly between its ends, from source to target. */
  via: Point[];
}

/** The laid-out graph, in plot coordinates (base px). */
export interface GraphLayout {
  nodes: PlacedNode[];
  edges: RoutedEdge[];
  layerCount: number;
  /** Nodes in the largest layer. */
  maxLayerSize: number;
  /** Distance between layer centres: 100 base px unless wide labels need more. */
  layerStep: number;
  /** Plot size: `layerStep` per layer step plus half the outer nodes, row pitch per node. */
  width: number;
  height: number;
}

// The bundle is CommonJS (`module.exports = ELK`) but its typings declare an ES default export,
// so under NodeNext TypeScript types the default import as the module object.
const ElkLayout = elkBundled as unknown as new (args?: ELKConstructorArguments) => ELK;

/** ELK's options; with the fixed random seed the layout is a function of the input and its order. */
function elkOptions(layerGap: number): Record<string, string> {
  return {
    "elk.algorithm": "layered",
    "elk.direction": "RIGHT",
    "elk.edgeRouting": "POLYLINE",
    "elk.randomSeed": "1",
    "elk.partitioning.activate": "true",
    // Partitions already fix the layers, so the cheapest layerer does; network simplex and
    // model-order sorting cost seconds on a 250-node graph.
    "elk.layered.layering.strategy": "LONGEST_PATH",
    "elk.layered.crossingMinimization.strategy": "LAYER_SWEEP",
    "elk.layered.crossingMinimization.thoroughness": "10",
    "elk.layered.nodePlacement.strategy": "BRANDES_KOEPF",
    "elk.layered.nodePlacement.bk.fixedAlignment": "BALANCED",
    "elk.spacing.nodeNode": String(GEOMETRY.rowPitch - GEOMETRY.nodeHeight),
    "elk.spacing.edgeNode": "8",
    "elk.spacing.edgeEdge": "6",
    "elk.layered.spacing.nodeNodeBetweenLayers": String(layerGap),
    "elk.layered.spacing.edgeNodeBetweenLayers": "10",
  };
}

/** y of a polyline at abscissa x (clamped to its ends). */
function yAt(points: readonly ElkPoint[], x: number): number {
  for (let i = 0; i + 1 < points.length; i++) {
    const a = points[i]!;
    const b = points[i + 1]!;
    if ((a.x - x) * (b.x - x) <= 0) {
      return b.x === a.x ? (a.y + b.y) / 2 : a.y + ((b.y - a.y) * (x - a.x)) / (b.x - a.x);
    }
  }
  const first = points[0]!;
  const last = points[points.length - 1]!;
  return Math.abs(first.x - x) < Math.abs(last.x - x) ? first.y : last.y;
}

interface Item {
  /** Node id, or edge id for an edge passing through the layer. */
  id: string;
  isNode: boolean;
  elkY: number;
}

/** Lays the selection out; `sizes` holds every node's size (base px). */
export async function layoutGraph(
  selection: GraphSelection,
  sizes: ReadonlyMap<string, Size>,
): Promise<GraphLayout> {
  const { layerOf, count: layerCount } = assignLayers(selection);
  const layerOfId = (id: string): number => layerOf.get(id)!;
  const sizeOf = (id: string): Size => sizes.get(id)!;

  const layerSize = new Array<number>(layerCount).fill(0);
  const halfWidth = new Array<number>(layerCount).fill(0);
  for (const n of selection.nodes) {
    const l = layerOfId(n.id);
    layerSize[l]!++;
    halfWidth[l] = Math.max(halfWidth[l]!, sizeOf(n.id).width / 2);
  }
  let layerStep: number = GEOMETRY.layerStep;
  for (let l = 0; l + 1 < layerCount; l++) {
    layerStep = Math.max(layerStep, Math.ceil(halfWidth[l]! + halfWidth[l + 1]! + GEOMETRY.minLayerGap));
  }
  const maxLayerSize = Math.max(...layerSize);
  const padLeft = Math.ceil(halfWidth[0]!);
  const width = padLeft + (layerCount - 1) * layerStep + Math.ceil(halfWidth[layerCount - 1]!);
  const height = maxLayerSize * GEOMETRY.rowPitch;

  // Input order = (layer, symbol, id): ELK's sweeps start from it and keep it where crossings do
  // not decide, which is how ties are broken by symbol.
  const ordered = [...selection.nodes].sort(
    (a, b) => layerOfId(a.id) - layerOfId(b.id) || byCodeUnit(a.symbol, b.symbol) || byCodeUnit(a.id, b.id),
  );
  const rank = new Map(ordered.map((n, i) => [n.id, i]));
  const elkWidth = Math.max(...ordered.map((n) => sizeOf(n.id).width));
  const directionOf = (e: GraphEdge): EdgeDirection => {
    const d = layerOfId(e.target) - layerOfId(e.source);
    return d > 0 ? "forward" : d < 0 ? "backward" : "same-layer";
  };
  // ELK sees backward edges reversed (so they are routed through the layers between their
  // ends) and never sees same-layer edges (which would split a layer in two).
  const elkEdges: ElkExtendedEdge[] = selection.edges
    .filter((e) => directionOf(e) !== "same-layer")
    .map((e): [string, string, string] =>
      directionOf(e) === "forward" ? [e.source, e.target, e.id] : [e.target, e.source, e.id],
    )
    .sort(([s1, t1], [s2, t2]) => rank.get(s1)! - rank.get(s2)! || rank.get(t1)! - rank.get(t2)!)
    .map(([source, target, id]) => ({ id, sources: [source], targets: [target] }));
  const graph: ElkNode = {
    id: "root",
    layoutOptions: elkOptions(Math.max(10, layerStep - elkWidth)),
    children: ordered.map((n) => ({
      id: n.id,
      width: elkWidth,
      height: GEOMETRY.nodeHeight,
      layoutOptions: { "elk.partitioning.partition": String(layerOfId(n.id)) },
    })),
    edges: elkEdges,
  };
  const result = await new ElkLayout().layout(graph);

  const elkCentre = new Map<string, Point>();
  for (const c of result.children ?? []) {
    elkCentre.set(c.id, { x: (c.x ?? 0) + (c.width ?? 0) / 2, y: (c.y ?? 0) + (c.height ?? 0) / 2 });
  }
  const layerX = new Array<number>(layerCount).fill(0);
  for (const n of ordered) layerX[layerOfId(n.id)]! += elkCentre.get(n.id)!.x / layerSize[layerOfId(n.id)]!;

  const items: Item[][] = Array.from({ length: layerCount }, () => []);
  for (const n of ordered)
    items[layerOfId(n.id)]!.push({ id: n.id, isNode: true, elkY: elkCentre.get(n.id)!.y });
  for (const e of result.edges ?? []) {
    const section = e.sections?.[0];
    if (!section) continue;
    const route = [section.startPoint, ...(section.bendPoints ?? []), section.endPoint];
    const from = layerOfId(e.sources[0]!);
    const to = layerOfId(e.targets[0]!);
    for (let l = from + 1; l < to; l++)
      items[l]!.push({ id: e.id, isNode: false, elkY: yAt(route, layerX[l]!) });
  }

  // Fit ELK's vertical positions into the frame: centre them, shrink them when ELK needed more
  // room than the size rule gives, then separate whatever came too close.
  const half = GEOMETRY.rowPitch / 2;
  const scores = selection.edges.map((e) => e.score);
  const [minScore, maxScore] = [Math.min(...scores), Math.max(...scores)];
  const widthOf = new Map(selection.edges.map((e) => [e.id, edgeWidth(e.score, minScore, maxScore)]));
  const allY = items.flat().map((i) => i.elkY);
  const elkTop = Math.min(...allY);
  const elkSpan = Math.max(...allY) - elkTop;
  const room = height - 2 * half;
  const scale = elkSpan > room ? room / elkSpan : 1;
  const shift = half + (room - elkSpan * scale) / 2;
  const placedY = new Map<string, number>();
  const viaY = new Map<string, Map<number, number>>();
  items.forEach((layerItems, l) => {
    layerItems.sort(
      (a, b) => a.elkY - b.elkY || Number(b.isNode) - Number(a.isNode) || byCodeUnit(a.id, b.id),
    );
    // Edges passing through want their width plus a gap; they get less when the layer is full.
    const wanted = layerItems.map((i) => (i.isNode ? 0 : widthOf.get(i.id)! / 2 + 2));
    const totalWanted = wanted.reduce((a, b) => a + b, 0);
    const spare = height / 2 - layerSize[l]! * half;
    const squeeze = totalWanted > spare ? Math.max(0, spare) / totalWanted : 1;
    const slots: Slot[] = layerItems.map((i, k) => ({
      desired: (i.elkY - elkTop) * scale + shift,
      extent: i.isNode ? half : wanted[k]! * squeeze,
      weight: i.isNode ? 1 : 0.25,
    }));
    const ys = placeSlots(slots, height);
    layerItems.forEach((item, k) => {
      if (item.isNode) placedY.set(item.id, ys[k]!);
      else {
        const byLayer = viaY.get(item.id) ?? new Map<number, number>();
        byLayer.set(l, ys[k]!);
        viaY.set(item.id, byLayer);
      }
    });
  });

  const xOf = (layer: number): number => padLeft + layer * layerStep;
  const nodes: PlacedNode[] = ordered.map((n) => ({
    ...n,
    layer: layerOfId(n.id),
    x: xOf(layerOfId(n.id)),
    y: placedY.get(n.id)!,
    size: sizeOf(n.id),
  }));
  const edges: RoutedEdge[] = selection.edges.map((e) => {
    const direction = directionOf(e);
    const byLayer = viaY.get(e.id);
    const via: Point[] = [];
    const [a, b] = [layerOfId(e.source), layerOfId(e.target)];
    const step = b > a ? 1 : -1;
    if (byLayer)
      for (let l = a + step; l !== b; l += step) via.push({ x: xOf(l), y: byLayer.get(l) ?? height / 2 });
    return { ...e, direction, via };
  });
  return { nodes, edges, layerCount, maxLayerSize, layerStep, width, height };
}
