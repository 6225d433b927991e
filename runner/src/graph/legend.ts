/**
 * The legend (model.md §11 "Legend"): node shapes, the fold-change colour bar, the edge keys and
 * the width rule. Drawn right of the plot, top-aligned.
 */
import type { SKRSContext2D } from "@napi-rs/canvas";
import { drawHead, drawNodeShape, dashPattern } from "./draw.ts";
import type { Point } from "./layout.ts";
import type { NodeKind } from "./select.ts";
import type { Size } from "./shapes.ts";
import { COLOURS, FONT_PT, GEOMETRY, edgeColour, font, foldRgb, pt } from "./style.ts";
import { textWidth } from "./text.ts";

const SAMPLE_WIDTH = 42;
const TEXT_X = SAMPLE_WIDTH + 10;
const LINE = Math.ceil(pt(FONT_PT.legend) * 1.45);
const ROW = 22;
const SECTION_GAP = 10;
const BAR_WIDTH = 150;
const BAR_HEIGHT = 12;

const NODE_KEYS: readonly (readonly [NodeKind, string])[] = [
  ["target", "target protein"],
  ["intermediary", "intermediary protein"],
  ["deg", "DEG (RNA)"],
];
const SIGN_KEYS: readonly (readonly [-1 | 0 | 1, string])[] = [
  [1, "activation"],
  [-1, "inhibition"],
  [0, "unknown sign"],
];
const STYLE_KEYS: readonly (readonly [boolean, string])[] = [
  [false, "protein signaling"],
  [true, "transcriptional regulation"],
];
const WIDTH_KEY = "edge width ∝ log path score";
const FOLD_TITLE = ["log2 fold change,", "perturbed vs control"];

const labelFont = font(FONT_PT.legend);
const headingFont = font(FONT_PT.legend, true);

/** Legend size in base px. */
export function legendSize(): Size {
  const labels = [...NODE_KEYS, ...SIGN_KEYS, ...STYLE_KEYS]
    .map(([, l]) => l)
    .concat(WIDTH_KEY, "not measured");
  const textRoom = Math.max(...labels.map((l) => textWidth(l, labelFont)));
  const headingRoom = Math.max(...FOLD_TITLE.map((l) => textWidth(l, headingFont)));
  const width = Math.ceil(Math.max(TEXT_X + textRoom, headingRoom, BAR_WIDTH + 12));
  const height =
    LINE +
    3 * ROW +
    SECTION_GAP +
    2 * LINE +
    BAR_HEIGHT +
    LINE +
    ROW +
    SECTION_GAP +
    LINE +
    6 * ROW +
    ROW / 2;
  return { width, height: Math.ceil(height) };
}

/** Two-significant-digit tick label with a true minus sign. */
export function formatFold(value: number): string {
  const text = Number(Math.abs(value).toPrecision(2)).toString();
  return value < 0 ? `−${text}` : value > 0 ? `+${text}` : "0";
}

function heading(ctx: SKRSContext2D, text: string, x: number, y: number): void {
  ctx.font = headingFont;
  ctx.fillStyle = COLOURS.text;
  ctx.textAlign = "left";
  ctx.fillText(text, x, y + LINE / 2);
}

function label(ctx: SKRSContext2D, text: string, x: number, centreY: number): void {
  ctx.font = labelFont;
  ctx.fillStyle = COLOURS.text;
  ctx.textAlign = "left";
  ctx.fillText(text, x, centreY);
}

function sampleLine(
  ctx: SKRSContext2D,
  from: Point,
  to: Point,
  colour: string,
  width: number,
  dashed: boolean,
): void {
  ctx.beginPath();
  ctx.moveTo(from.x, from.y);
  ctx.lineTo(to.x, to.y);
  ctx.strokeStyle = colour;
  ctx.lineWidth = width;
  ctx.lineCap = "butt";
  ctx.setLineDash(dashed ? dashPattern(width) : []);
  ctx.stroke();
}

/** Draws the legend with its top-left corner at (x, y), for colour limits ±`limit`. */
export function drawLegend(ctx: SKRSContext2D, x: number, y: number, limit: number): void {
  ctx.textBaseline = "middle";
  let top = y;

  heading(ctx, "Nodes", x, top);
  top += LINE;
  for (const [kind, text] of NODE_KEYS) {
    const size = { width: SAMPLE_WIDTH - 6, height: 16 };
    drawNodeShape(ctx, kind, { x: x + SAMPLE_WIDTH / 2, y: top + ROW / 2 }, size, COLOURS.background);
    label(ctx, text, x + TEXT_X, top + ROW / 2);
    top += ROW;
  }
  top += SECTION_GAP;

  FOLD_TITLE.forEach((line, i) => heading(ctx, line, x, top + i * LINE));
  top += 2 * LINE;
  const gradient = ctx.createLinearGradient(x, 0, x + BAR_WIDTH, 0);
  for (let k = 0; k <= 20; k++) {
    const [r, g, b] = foldRgb(-limit + (2 * limit * k) / 20, limit);
    gradient.addColorStop(k / 20, `rgb(${r}, ${g}, ${b})`);
  }
  ctx.fillStyle = gradient;
  ctx.fillRect(x, top, BAR_WIDTH, BAR_HEIGHT);
  ctx.lineWidth = GEOMETRY.nodeOutline;
  ctx.strokeStyle = COLOURS.nodeOutline;
  ctx.setLineDash([]);
  ctx.strokeRect(x, top, BAR_WIDTH, BAR_HEIGHT);
  top += BAR_HEIGHT;
  ctx.font = labelFont;
  ctx.fillStyle = COLOURS.text;
  for (const [value, align] of [
    [-limit, "left"],
    [0, "center"],
    [limit, "right"],
  ] as const) {
    ctx.textAlign = align;
    ctx.fillText(formatFold(value), x + ((value + limit) / (2 * limit)) * BAR_WIDTH, top + LINE / 2 + 1);
  }
  top += LINE;
  ctx.fillStyle = COLOURS.unmeasured;
  ctx.fillRect(x, top + (ROW - BAR_HEIGHT) / 2, 24, BAR_HEIGHT);
  ctx.strokeRect(x, top + (ROW - BAR_HEIGHT) / 2, 24, BAR_HEIGHT);
  label(ctx, "not measured", x + 32, top + ROW / 2);
  top += ROW + SECTION_GAP;

  heading(ctx, "Edges", x, top);
  top += LINE;
  const lineFrom = (row: number): Point => ({ x: x + 2, y: row });
  const tipAt = (row: number): Point => ({ x: x + SAMPLE_WIDTH - 2, y: row });
  for (const [sign, text] of SIGN_KEYS) {
    const row = top + ROW / 2;
    const head = sign < 0 ? "bar" : "triangle";
    const back = head === "bar" ? 1.5 : 8;
    sampleLine(ctx, lineFrom(row), { x: tipAt(row).x - back, y: row }, edgeColour(sign), 2, false);
    drawHead(ctx, tipAt(row), { x: 1, y: 0 }, head, edgeColour(sign), 2);
    label(ctx, text, x + TEXT_X, row);
    top += ROW;
  }
  for (const [dashed, text] of STYLE_KEYS) {
    const row = top + ROW / 2;
    sampleLine(ctx, lineFrom(row), tipAt(row), COLOURS.mutedText, 2, dashed);
    label(ctx, text, x + TEXT_X, row);
    top += ROW;
  }
  const row = top + ROW / 2;
  sampleLine(ctx, lineFrom(row - 5), tipAt(row - 5), COLOURS.mutedText, GEOMETRY.edgeWidthMin, false);
  sampleLine(ctx, lineFrom(row + 4), tipAt(row + 4), COLOURS.mutedText, GEOMETRY.edgeWidthMax, false);
  label(ctx, WIDTH_KEY, x + TEXT_X, row);
}
