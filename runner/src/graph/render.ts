/**
 * The causal-graph PNG (model.md §11): one entry point for the runner job (fixed options of
 * §10.8) and the API's on-demand route (§4.8). Rendering is split in two so the cost of each
 * half can be measured: the scene (selection, sizes, layout, frame) does not depend on the dpi;
 * drawing scales the scene by dpi/100 and encodes it.
 */
import { createCanvas } from "@napi-rs/canvas";
import { z } from "zod";
import { drawEdge, drawNodes } from "./draw.ts";
import { edgeDrawings } from "./edges.ts";
import { captionText, CAPTION_FONT, frameImage, titleText, TITLE_FONT, type Frame } from "./frame.ts";
import type { CausalGraphInputs } from "./inputs.ts";
import { layoutGraph, type GraphLayout } from "./layout.ts";
import { drawLegend, legendSize } from "./legend.ts";
import { selectGraph, type GraphSelection } from "./select.ts";
import { nodeSize, type Size } from "./shapes.ts";
import { BASE_DPI, colourLimit, COLOURS, FONT_PT, font } from "./style.ts";
import { textWidth } from "./text.ts";

/** Options of one image: service-spec §4.8 bounds. */
export const RenderOptions = z.object({
  topNDegs: z.number().int().min(1).max(10_000),
  dpi: z.number().int().min(72).max(600),
});
/** `topNDegs` 1..10000, `dpi` 72..600, both integers. */
export type RenderOptions = z.infer<typeof RenderOptions>;

/**
 * Largest image drawn, in pixels (about 144 MB of RGBA). The 250-node cap at 600 dpi would
 * otherwise ask for ~51,000 px of height and about 1 GB in one request of an API pod.
 */
export const MAX_PIXELS = 36_000_000;

/** The dpi actually drawn: the requested one, lowered just enough to respect MAX_PIXELS. */
export function effectiveDpi(scene: Scene, dpi: number): number {
  const { width, height } = imageSize(scene, dpi);
  if (width * height <= MAX_PIXELS) return dpi;
  return Math.max(1, Math.floor(dpi * Math.sqrt(MAX_PIXELS / (width * height))));
}

/** Render options out of range (a caller bug: the API validates the query before calling). */
export class InvalidRenderOptions extends RangeError {
  override readonly name = "InvalidRenderOptions";
}

/** Everything the drawing needs, in base px; independent of the dpi. */
export interface Scene {
  selection: GraphSelection;
  layout: GraphLayout;
  frame: Frame;
  /** Colour limits are ±`colourLimit`. */
  colourLimit: number;
}

/** Selects, sizes and lays out the graph of the first `topNDegs` impacted DEGs. */
export async function buildScene(inputs: CausalGraphInputs, topNDegs: number): Promise<Scene> {
  const selection = selectGraph(inputs, topNDegs);
  const sizes = new Map<string, Size>();
  for (const n of selection.nodes) {
    sizes.set(n.id, nodeSize(n.kind, textWidth(n.symbol, font(FONT_PT.label, n.kind === "target"))));
  }
  const layout = await layoutGraph(selection, sizes);
  const frame = frameImage(titleText(selection), captionText(inputs, selection), layout, legendSize());
  return { selection, layout, frame, colourLimit: colourLimit(selection.nodes.map((n) => n.log2fc)) };
}

/** Pixel size of a scene's image at `dpi`. */
export function imageSize(scene: Scene, dpi: number): Size {
  const scale = dpi / BASE_DPI;
  return { width: Math.round(scene.frame.width * scale), height: Math.round(scene.frame.height * scale) };
}

/** Draws a scene at `dpi` and encodes it as PNG (with the dpi recorded in its pHYs chunk). */
export async function drawScene(scene: Scene, dpi: number): Promise<Buffer> {
  const { frame, layout } = scene;
  const { width, height } = imageSize(scene, dpi);
  const canvas = createCanvas(width, height);
  const ctx = canvas.getContext("2d");
  ctx.fillStyle = COLOURS.background;
  ctx.fillRect(0, 0, width, height);
  ctx.scale(dpi / BASE_DPI, dpi / BASE_DPI);

  ctx.textBaseline = "middle";
  ctx.textAlign = "left";
  ctx.fillStyle = COLOURS.text;
  ctx.font = TITLE_FONT;
  ctx.fillText(frame.title.text, frame.title.x, frame.title.y);

  ctx.save();
  ctx.translate(frame.plot.x, frame.plot.y);
  for (const edge of edgeDrawings(layout)) drawEdge(ctx, edge);
  drawNodes(ctx, layout.nodes, scene.colourLimit);
  ctx.restore();

  drawLegend(ctx, frame.legend.x, frame.legend.y, scene.colourLimit);

  ctx.font = CAPTION_FONT;
  ctx.fillStyle = COLOURS.mutedText;
  ctx.textAlign = "left";
  ctx.textBaseline = "middle";
  frame.caption.lines.forEach((line, i) => {
    ctx.fillText(line, frame.caption.x, frame.caption.y + (i + 0.5) * frame.caption.lineHeight);
  });
  return canvas.encode("png", { resolution: dpi });
}

/**
 * Renders the causal-graph image of model.md §11 as PNG bytes. Equal inputs and options give
 * equal bytes. Very large graphs at high dpi are drawn at the highest dpi that fits
 * MAX_PIXELS; the PNG records the dpi drawn.
 * @param inputs validated replay inputs (`parseCausalGraphInputs`)
 * @param options `topNDegs` 1..10000 (the first DEGs of `D_t` whose paths are drawn), `dpi` 72..600
 * @throws InvalidRenderOptions when an option is out of range or not an integer
 */
export async function renderCausalGraph(inputs: CausalGraphInputs, options: RenderOptions): Promise<Buffer> {
  const parsed = RenderOptions.safeParse(options);
  if (!parsed.success) {
    throw new InvalidRenderOptions(
      `invalid causal graph options: ${parsed.error.issues.map((i) => `${i.path.join(".")}: ${i.message}`).join("; ")}`,
    );
  }
  const scene = await buildScene(inputs, parsed.data.topNDegs);
  return drawScene(scene, effectiveDpi(scene, parsed.data.dpi));
}
