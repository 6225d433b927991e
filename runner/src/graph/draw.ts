/** Canvas drawing of nodes and edges; coordinates in base px (the caller scales for the dpi). */
import type { SKRSContext2D } from "@napi-rs/canvas";
import { headSize, type EdgeDrawing } from "./edges.ts";
import type { PlacedNode, Point } from "./layout.ts";
import type { NodeKind } from "./select.ts";
import { traceShape, type Size } from "./shapes.ts";
import { COLOURS, FONT_PT, GEOMETRY, font, labelColourOn, nodeFill } from "./style.ts";

/** Dash pattern of transcriptional edges, lengthened with the width so thick dashes stay dashes. */
export function dashPattern(width: number): number[] {
  return [5 + 1.5 * width, 3 + width];
}

/** Draws an edge head: a filled triangle, or the flat bar (⊣) of an inhibition. */
export function drawHead(
  ctx: SKRSContext2D,
  tip: Point,
  direction: Point,
  head: EdgeDrawing["head"],
  colour: string,
  width: number,
): void {
  const { length, halfWidth } = headSize(width);
  const normal = { x: -direction.y, y: direction.x };
  ctx.setLineDash([]);
  if (head === "triangle") {
    const base = { x: tip.x - direction.x * length, y: tip.y - direction.y * length };
    ctx.beginPath();
    ctx.moveTo(tip.x, tip.y);
    ctx.lineTo(base.x + normal.x * halfWidth, base.y + normal.y * halfWidth);
    ctx.lineTo(base.x - normal.x * halfWidth, base.y - normal.y * halfWidth);
    ctx.closePath();
    ctx.fillStyle = colour;
    ctx.fill();
  } else {
    const thickness = 2 + 0.4 * width;
    const centre = { x: tip.x - (direction.x * thickness) / 2, y: tip.y - (direction.y * thickness) / 2 };
    const reach = halfWidth + 1;
    ctx.beginPath();
    ctx.moveTo(centre.x + normal.x * reach, centre.y + normal.y * reach);
    ctx.lineTo(centre.x - normal.x * reach, centre.y - normal.y * reach);
    ctx.strokeStyle = colour;
    ctx.lineWidth = thickness;
    ctx.lineCap = "butt";
    ctx.stroke();
  }
}

/** Draws one edge: its line (solid or dashed) and its head. */
export function drawEdge(ctx: SKRSContext2D, edge: EdgeDrawing): void {
  ctx.beginPath();
  const first = edge.segments[0]!;
  ctx.moveTo(first.from.x, first.from.y);
  for (const s of edge.segments) ctx.bezierCurveTo(s.c1.x, s.c1.y, s.c2.x, s.c2.y, s.to.x, s.to.y);
  ctx.strokeStyle = edge.colour;
  ctx.lineWidth = edge.width;
  ctx.lineCap = "butt";
  ctx.setLineDash(edge.dashed ? dashPattern(edge.width) : []);
  ctx.stroke();
  drawHead(ctx, edge.tip, edge.direction, edge.head, edge.colour, edge.width);
}

/** Draws a node shape with its fill and outline (3 px black for the target). */
export function drawNodeShape(
  ctx: SKRSContext2D,
  kind: NodeKind,
  centre: Point,
  size: Size,
  fill: string,
): void {
  traceShape(ctx, kind, centre.x, centre.y, size);
  ctx.fillStyle = fill;
  ctx.fill();
  ctx.setLineDash([]);
  ctx.lineJoin = "round";
  ctx.lineWidth = kind === "target" ? GEOMETRY.targetOutline : GEOMETRY.nodeOutline;
  ctx.strokeStyle = kind === "target" ? COLOURS.targetOutline : COLOURS.nodeOutline;
  ctx.stroke();
}

/** Draws the nodes with their labels, coloured on the fold-change scale with limit ±`limit`. */
export function drawNodes(ctx: SKRSContext2D, nodes: readonly PlacedNode[], limit: number): void {
  ctx.textAlign = "center";
  ctx.textBaseline = "middle";
  for (const n of nodes) {
    const fill = nodeFill(n.log2fc, limit);
    drawNodeShape(ctx, n.kind, n, n.size, fill);
    ctx.font = font(FONT_PT.label, n.kind === "target");
    ctx.fillStyle = labelColourOn(fill);
    ctx.fillText(n.symbol, n.x, n.y + 0.5);
  }
}
