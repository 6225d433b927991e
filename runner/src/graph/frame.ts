/**
 * The image frame (model.md §11 "Title and caption", "Size"): title on top, plot and legend side
 * by side, caption below; the texts, and where everything goes, in base px.
 */
import { MAX_NODES, type GraphSelection } from "./select.ts";
import type { CausalGraphInputs } from "./inputs.ts";
import type { Size } from "./shapes.ts";
import { FONT_PT, GEOMETRY, font, pt } from "./style.ts";
import { textWidth, wrapText } from "./text.ts";

/** Where title, plot, legend and caption go, in base px. */
export interface Frame {
  /** Image size in base px (integers). */
  width: number;
  height: number;
  title: { text: string; x: number; y: number };
  caption: { lines: string[]; x: number; y: number; lineHeight: number };
  plot: { x: number; y: number };
  legend: { x: number; y: number };
}

/** Fonts of the title and the caption. */
export const TITLE_FONT = font(FONT_PT.title, true);
export const CAPTION_FONT = font(FONT_PT.caption);

/** `Causal paths from TARGET to the top N impacted DEGs`. */
export function titleText(selection: GraphSelection): string {
  return `Causal paths from ${selection.target.symbol} to the top ${selection.topN} impacted DEGs`;
}

const plural = (n: number, word: string): string => `${n} ${word}${n === 1 ? "" : "s"}`;

/** Caption sentences: model and thresholds, then what is shown and what the cap left out. */
export function captionText(inputs: CausalGraphInputs, selection: GraphSelection): string[] {
  const o = inputs.options;
  const shown = [
    `${plural(selection.pathsShown, "path")} and ${plural(selection.degsShown, "DEG")} shown`,
    ...(selection.degsWithoutPath > 0
      ? [`${selection.degsWithoutPath} of the top ${selection.topN} DEGs have no kept path`]
      : []),
    ...(selection.pathsOmitted > 0
      ? [`${plural(selection.pathsOmitted, "path")} omitted (at most ${MAX_NODES} nodes are drawn)`]
      : []),
  ];
  return [
    `model_version ${inputs.model_version} · min_path_probability ${o.min_path_probability} · ` +
      `min_path_fraction ${o.min_path_fraction} · max_path_length ${o.max_path_length}`,
    shown.join(" · "),
  ];
}

/**
 * Frames a plot of the given size. The width is the plot (layer steps plus margins) and the
 * legend, widened only when the title would not fit; the height is the taller of plot and
 * legend plus title and caption.
 */
export function frameImage(title: string, caption: readonly string[], plot: Size, legend: Size): Frame {
  const { margin, gap } = GEOMETRY;
  const titleHeight = Math.ceil(pt(FONT_PT.title) * 1.5);
  const lineHeight = Math.ceil(pt(FONT_PT.caption) * 1.45);
  const legendGap = Math.round(gap * 1.5);
  const width = Math.ceil(
    Math.max(
      margin + plot.width + legendGap + legend.width + margin,
      margin + textWidth(title, TITLE_FONT) + margin,
    ),
  );
  const lines = caption.flatMap((c) => wrapText(c, CAPTION_FONT, width - 2 * margin));
  const bodyTop = margin + titleHeight + gap;
  const bodyHeight = Math.max(plot.height, legend.height);
  const captionTop = bodyTop + bodyHeight + gap;
  return {
    width,
    height: captionTop + lines.length * lineHeight + margin,
    title: { text: title, x: margin, y: margin + titleHeight / 2 },
    caption: { lines, x: margin, y: captionTop, lineHeight },
    plot: { x: margin, y: bodyTop + Math.round((bodyHeight - plot.height) / 2) },
    legend: { x: margin + plot.width + legendGap, y: bodyTop },
  };
}
