/**
 * Edge geometry (model.md §11 "Edges"): where each edge leaves and enters its nodes, the curve
 * through the layers it crosses, and the head at its end. Edges meeting at one side of a node
 * are spread along that side in the order of where they come from, so heads do not pile up and
 * edges do not cross at the node.
 */
import type { GraphLayout, PlacedNode, Point, RoutedEdge } from "./layout.ts";
import { halfWidthAt } from "./shapes.ts";
import { edgeColour, edgeWidth, GEOMETRY } from "./style.ts";

/** One cubic Bézier segment. */
export interface Cubic {
  from: Point;
  c1: Point;
  c2: Point;
  to: Point;
}

/** Everything needed to stroke one edge and draw its head. */
export interface EdgeDrawing {
  id: string;
  /** The line, ending where the head begins. */
  segments: Cubic[];
  /** Where the head touches the target node, and the unit direction it points in. */
  tip: Point;
  direction: Point;
  head: "triangle" | "bar";
  colour: string;
  /** Base px. */
  width: number;
  dashed: boolean;
}

type Side = "left" | "right";

interface End {
  edge: RoutedEdge;
  node: PlacedNode;
  side: Side;
  /** The point the edge comes from or goes to next, which orders the ends along the side. */
  towards: Point;
  other: string;
}

/** Head length and half-width for an edge of the given width. */
export function headSize(width: number): { length: number; halfWidth: number } {
  return { length: 6 + 1.3 * width, halfWidth: 2.8 + 0.9 * width };
}

const BAR_GAP = 1.5;

/** Computes every edge's drawing, thinnest first so heavy edges are drawn on top. */
export function edgeDrawings(layout: GraphLayout): EdgeDrawing[] {
  const nodeById = new Map(layout.nodes.map((n) => [n.id, n]));
  const scores = layout.edges.map((e) => e.score);
  const [minScore, maxScore] = [Math.min(...scores), Math.max(...scores)];

  const ends = new Map<string, End[]>();
  const portOf = new Map<string, Point>();
  const endKey = (edgeId: string, role: "source" | "target"): string => `${role}\t${edgeId}`;
  const add = (key: string, end: End): void => {
    const list = ends.get(key);
    if (list) list.push(end);
    else ends.set(key, [end]);
  };
  for (const e of layout.edges) {
    const source = nodeById.get(e.source)!;
    const target = nodeById.get(e.target)!;
    const sourceSide: Side = e.direction === "backward" ? "left" : "right";
    const targetSide: Side = e.direction === "forward" ? "left" : "right";
    add(`${e.source}\t${sourceSide}`, {
      edge: e,
      node: source,
      side: sourceSide,
      towards: e.via[0] ?? target,
      other: e.target,
    });
    add(`${e.target}\t${targetSide}`, {
      edge: e,
      node: target,
      side: targetSide,
      towards: e.via[e.via.length - 1] ?? source,
      other: e.source,
    });
  }
  for (const group of ends.values()) {
    group.sort((a, b) => a.towards.y - b.towards.y || (a.other < b.other ? -1 : a.other > b.other ? 1 : 0));
    const node = group[0]!.node;
    const spacing =
      group.length > 1 ? Math.min(GEOMETRY.portSpacing, (node.size.height - 10) / (group.length - 1)) : 0;
    group.forEach((end, j) => {
      const dy = (j - (group.length - 1) / 2) * spacing;
      const dx = halfWidthAt(node.kind, node.size, dy);
      portOf.set(endKey(end.edge.id, end.node.id === end.edge.source ? "source" : "target"), {
        x: node.x + (end.side === "right" ? dx : -dx),
        y: node.y + dy,
      });
    });
  }

  return layout.edges
    .map((e): EdgeDrawing => {
      const start = portOf.get(endKey(e.id, "source"))!;
      const tip = portOf.get(endKey(e.id, "target"))!;
      const width = edgeWidth(e.score, minScore, maxScore);
      const head = e.sign < 0 ? "bar" : "triangle";
      const points = [start, ...e.via, tip];
      const segments: Cubic[] = [];
      if (e.direction === "same-layer") {
        const bulge = Math.min(20 + 0.3 * Math.abs(tip.y - start.y), 0.45 * layout.layerStep);
        segments.push({
          from: start,
          c1: { x: start.x + bulge, y: start.y },
          c2: { x: tip.x + bulge, y: tip.y },
          to: tip,
        });
      } else {
        for (let i = 0; i + 1 < points.length; i++) {
          const a = points[i]!;
          const b = points[i + 1]!;
          const half = (b.x - a.x) / 2;
          segments.push({ from: a, c1: { x: a.x + half, y: a.y }, c2: { x: b.x - half, y: b.y }, to: b });
        }
      }
      // Every segment ends horizontally, so the head points along the x axis.
      const last = segments[segments.length - 1]!;
      const direction = { x: Math.sign(last.to.x - last.c2.x) || 1, y: 0 };
      const back = head === "triangle" ? headSize(width).length : BAR_GAP;
      const end = { x: tip.x - direction.x * back, y: tip.y };
      segments[segments.length - 1] = {
        ...last,
        c2: { x: last.c2.x - direction.x * back, y: last.c2.y },
        to: end,
      };
      return {
        id: e.id,
        segments,
        tip,
        direction,
        head,
        colour: edgeColour(e.sign),
        width,
        dashed: e.type === "transcriptional",
      };
    })
    .sort((a, b) => a.width - b.width || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
}
