/**
 * Every visual constant of the causal-graph image (model.md §11). Lengths are in base pixels:
 * pixels of the image at 100 dpi. The renderer scales the whole drawing by dpi/100, so an image
 * at any dpi is the same picture with more or fewer pixels, and font sizes given in points stay
 * the same physical size.
 */
import type { EdgeSign } from "./inputs.ts";

/** The resolution at which one base pixel is one image pixel. */
export const BASE_DPI = 100;

/** Base pixels of a length given in typographic points (1 pt = 1/72 inch). */
export function pt(points: number): number {
  return (points * BASE_DPI) / 72;
}

/** Geometry of the drawing, in base pixels. */
export const GEOMETRY = {
  /** Horizontal distance between consecutive layers (§11 "Size"). */
  layerStep: 100,
  /** Vertical room per node of the largest layer (§11 "Size"). */
  rowPitch: 40,
  /** Narrowest white gap left between nodes of adjacent layers for the arrows. */
  minLayerGap: 22,
  /** Outer margin of the image. */
  margin: 16,
  /** Gap between the plot and the legend, and between the plot and title or caption. */
  gap: 18,
  nodeHeight: 24,
  /** Horizontal padding between a label and its node outline. */
  labelPad: 7,
  /** Width of the pointed ends of the target hexagon. */
  hexagonInset: 8,
  degCornerRadius: 6,
  nodeOutline: 1,
  targetOutline: 3,
  edgeWidthMin: 1,
  edgeWidthMax: 5,
  /** Vertical distance between the attachment points of edges meeting at one side of a node. */
  portSpacing: 6,
} as const;

/** Font sizes in points; `FONT_FAMILY` is the system sans-serif font. */
export const FONT_PT = { label: 9, title: 13, caption: 9, legend: 9 } as const;
export const FONT_FAMILY = "sans-serif";

/** A CSS font string at a size in points, expressed in base pixels. */
export function font(points: number, bold = false): string {
  return `${bold ? "bold " : ""}${pt(points).toFixed(2)}px ${FONT_FAMILY}`;
}

/** Fixed colours: background, text, outlines, unmeasured genes, edge signs. */
export const COLOURS = {
  background: "#ffffff",
  text: "#1a1a1a",
  mutedText: "#4d4d4d",
  nodeOutline: "#404040",
  targetOutline: "#000000",
  unmeasured: "#cccccc",
  activation: "#1b7837",
  inhibition: "#d7191c",
  unknown: "#8c8c8c",
} as const;

/** Edge colour by sign: activation dark green, inhibition red, unknown grey (§11). */
export function edgeColour(sign: EdgeSign): string {
  return sign > 0 ? COLOURS.activation : sign < 0 ? COLOURS.inhibition : COLOURS.unknown;
}

/** ColorBrewer RdBu with a pure white centre, from −limit (blue) to +limit (red). */
const DIVERGING: readonly (readonly [number, number, number])[] = [
  [5, 48, 97],
  [33, 102, 172],
  [67, 147, 195],
  [146, 197, 222],
  [209, 229, 240],
  [255, 255, 255],
  [253, 219, 199],
  [244, 165, 130],
  [214, 96, 77],
  [178, 24, 43],
  [103, 0, 31],
];

/** Upper bound of the symmetric colour limits (§11: `±min(3, max |log2FC| shown)`). */
export const MAX_COLOUR_LIMIT = 3;

/**
 * The symmetric colour limit `min(3, max |log2FC|)` over the shown genes' fold changes. When no
 * shown gene has a non-zero measured fold change the limit is 1, so the scale stays drawable.
 */
export function colourLimit(log2fcs: Iterable<number | null>): number {
  let max = 0;
  for (const v of log2fcs) if (v !== null) max = Math.max(max, Math.abs(v));
  return max > 0 ? Math.min(MAX_COLOUR_LIMIT, max) : 1;
}

/** RGB of a fold change on the diverging scale, clamped at ±limit. */
export function foldRgb(log2fc: number, limit: number): [number, number, number] {
  const t = Math.max(-1, Math.min(1, log2fc / limit));
  const pos = ((t + 1) / 2) * (DIVERGING.length - 1);
  const i = Math.min(DIVERGING.length - 2, Math.floor(pos));
  const f = pos - i;
  const a = DIVERGING[i]!;
  const b = DIVERGING[i + 1]!;
  return [0, 1, 2].map((k) => Math.round(a[k]! + (b[k]! - a[k]!) * f)) as [number, number, number];
}

function hex([r, g, b]: readonly [number, number, number]): string {
  return `#${[r, g, b].map((c) => c.toString(16).padStart(2, "0")).join("")}`;
}

/** Node fill: the gene's fold change on the diverging scale, light grey when not measured. */
export function nodeFill(log2fc: number | null, limit: number): string {
  return log2fc === null ? COLOURS.unmeasured : hex(foldRgb(log2fc, limit));
}

/** Label colour readable on a fill: white on the dark ends of the scale, near-black elsewhere. */
export function labelColourOn(fill: string): string {
  const [r, g, b] = [1, 3, 5].map((i) => parseInt(fill.slice(i, i + 2), 16) / 255) as [
    number,
    number,
    number,
  ];
  const luminance = 0.2126 * r + 0.7152 * g + 0.0722 * b;
  return luminance < 0.4 ? "#ffffff" : COLOURS.text;
}

/**
 * Edge width, 1–5 base px linear in log10 of the edge's summed path score over the range of
 * the edges shown (§11); the middle width when all edges carry the same score.
 */
export function edgeWidth(score: number, minScore: number, maxScore: number): number {
  const { edgeWidthMin: lo, edgeWidthMax: hi } = GEOMETRY;
  const span = Math.log10(maxScore) - Math.log10(minScore);
  if (!(span > 1e-12)) return (lo + hi) / 2;
  return lo + ((hi - lo) * (Math.log10(score) - Math.log10(minScore))) / span;
}
