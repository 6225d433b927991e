/** Text measurement in base px, shared by sizing (nodes, legend, frame) and wrapping. */
import { createCanvas, type SKRSContext2D } from "@napi-rs/canvas";

let measuring: SKRSContext2D | null = null;

/** Advance width of `text` in the CSS font `font` (sizes in base px). */
export function textWidth(text: string, font: string): number {
  measuring ??= createCanvas(1, 1).getContext("2d");
  measuring.font = font;
  return measuring.measureText(text).width;
}

/** Greedy word wrap; a single word wider than `maxWidth` gets a line of its own. */
export function wrapText(text: string, font: string, maxWidth: number): string[] {
  const lines: string[] = [];
  let line = "";
  for (const word of text.split(" ")) {
    const candidate = line === "" ? word : `${line} ${word}`;
    if (line !== "" && textWidth(candidate, font) > maxWidth) {
      lines.push(line);
      line = word;
    } else {
      line = candidate;
    }
  }
  if (line !== "") lines.push(line);
  return lines;
}
