/**
 * Node shapes (model.md §11 "Nodes"): target hexagon, intermediary ellipse, DEG rounded
 * rectangle, each sized to hold its label.
 */
import type { SKRSContext2D } from "@napi-rs/canvas";
import type { NodeKind } from "./select.ts";
import { GEOMETRY } from "./style.ts";

/** Width and height in base px. */
export interface Size {
  width: number;
  height: number;
}

/** Node size for a label of the given width (base px). */
export function nodeSize(kind: NodeKind, labelWidth: number): Size {
  const { labelPad, hexagonInset, nodeHeight, targetOutline } = GEOMETRY;
  const plain = labelWidth + 2 * labelPad;
  // The ellipse is narrower than its bounding box at the label's top and bottom, the hexagon
  // loses part of its pointed ends; both get room back so the label never touches the outline.
  const width =
    kind === "intermediary" ? plain * 1.1 : kind === "target" ? plain + hexagonInset + targetOutline : plain;
  return { width: Math.ceil(width), height: nodeHeight };
}

/** Adds the node's outline as a closed path centred on (cx, cy). */
export function traceShape(ctx: SKRSContext2D, kind: NodeKind, cx: number, cy: number, size: Size): void {
  const w = size.width / 2;
  const h = size.height / 2;
  ctx.beginPath();
  if (kind === "target") {
    const i = GEOMETRY.hexagonInset;
    ctx.moveTo(cx - w, cy);
    ctx.lineTo(cx - w + i, cy - h);
    ctx.lineTo(cx + w - i, cy - h);
    ctx.lineTo(cx + w, cy);
    ctx.lineTo(cx + w - i, cy + h);
    ctx.lineTo(cx - w + i, cy + h);
    ctx.closePath();
  } else if (kind === "intermediary") {
    ctx.ellipse(cx, cy, w, h, 0, 0, 2 * Math.PI);
  } else {
    ctx.roundRect(cx - w, cy - h, 2 * w, 2 * h, GEOMETRY.degCornerRadius);
  }
}

/**
 * Horizontal distance from the centre to the outline at vertical offset `dy` (|dy| < height/2):
 * where an edge attached at that height meets the shape.
 */
export function halfWidthAt(kind: NodeKind, size: Size, dy: number): number {
  const w = size.width / 2;
  const h = size.height / 2;
  const r = Math.min(1, Math.abs(dy) / h);
  if (kind === "target") return w - GEOMETRY.hexagonInset * r;
  if (kind === "intermediary") return w * Math.sqrt(Math.max(0, 1 - r * r));
  const corner = GEOMETRY.degCornerRadius;
  const into = Math.abs(dy) - (h - corner);
  return into > 0 ? w - corner + Math.sqrt(Math.max(0, corner * corner - into * into)) : w;
}
