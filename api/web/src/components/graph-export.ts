/**
 * The causal graph as files a biologist can put in a figure: PNG and SVG, each with a title, the
 * colour key of the log2 fold change, the edge signs and the node shapes, so that the image
 * explains itself away from the page.
 */
import type cytoscape from "cytoscape";
import { num } from "../format.ts";
import type { GraphModel } from "../graph-model.ts";

const esc = (s: string) => s.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);

/** The colours of the key: the runner's diverging scale (graph/style) at −limit, 0, +limit. */
export const KEY = { down: "#2166ac", zero: "#f7f7f7", up: "#b2182b", missing: "#bdbdbd" };
export const EDGE_KEY = [
  { colour: "#1b7837", label: "activation" },
  { colour: "#d7191c", label: "inhibition" },
  { colour: "#8c8c8c", label: "unknown sign" },
];

const TITLE_H = 44;
const LEGEND_H = 74;
const MIN_W = 640;

/** The lines of the legend, for both formats. */
function legendText(model: GraphModel): string[] {
  return [
    `Node colour: log2 fold change (perturbed vs control), blue −${num(model.colourLimit)} · white 0 · red +${num(model.colourLimit)}; grey = not measured`,
    "Edges: green activation · red inhibition · grey unknown sign; dashed = transcriptional (protein → RNA)",
    "Shapes: hexagon = target · ellipse = intermediary protein · rounded box = DEG (its RNA)",
  ];
}

/** An SVG of the graph at the positions Cytoscape shows, with its title and legend. */
export function graphSvg(cy: cytoscape.Core, model: GraphModel, title: string): string {
  const bb = cy.elements().boundingBox({});
  const pad = 20;
  const w = Math.max(MIN_W, Math.ceil(bb.w + 2 * pad));
  const gh = Math.ceil(bb.h + 2 * pad);
  const h = TITLE_H + gh + LEGEND_H;
  const X = (x: number) => (x - bb.x1 + pad).toFixed(1);
  const Y = (y: number) => (y - bb.y1 + pad + TITLE_H).toFixed(1);
  const parts: string[] = [
    `<svg xmlns="http://www.w3.org/2000/svg" width="${w}" height="${h}" viewBox="0 0 ${w} ${h}" font-family="sans-serif" font-size="12">`,
    `<title>${esc(title)}</title>`,
    `<rect width="100%" height="100%" fill="#fff"/>`,
    `<text x="${pad}" y="28" font-size="18" font-weight="bold">${esc(title)}</text>`,
    `<defs><marker id="a" viewBox="0 0 10 10" refX="10" refY="5" markerWidth="6" markerHeight="6" orient="auto-start-reverse"><path d="M0,0L10,5L0,10z" fill="context-stroke"/></marker>` +
      `<marker id="t" viewBox="0 0 4 10" refX="4" refY="5" markerWidth="3" markerHeight="8" orient="auto"><rect width="4" height="10" fill="context-stroke"/></marker></defs>`,
  ];
  for (const e of model.edges) {
    const s = cy.getElementById(e.source).position();
    const t = cy.getElementById(e.target).position();
    const dash = e.type === "transcriptional" ? ` stroke-dasharray="5 3"` : "";
    parts.push(
      `<line x1="${X(s.x + 40)}" y1="${Y(s.y)}" x2="${X(t.x - 40)}" y2="${Y(t.y)}" stroke="${e.colour}" stroke-width="${e.width.toFixed(2)}"${dash} marker-end="url(#${e.sign < 0 ? "t" : "a"})"/>`,
    );
  }
  for (const n of model.nodes) {
    const p = cy.getElementById(n.id).position();
    const x = Number(X(p.x));
    const y = Number(Y(p.y));
    const shape =
      n.kind === "intermediary"
        ? `<ellipse cx="${x}" cy="${y}" rx="40" ry="13"`
        : n.kind === "deg"
          ? `<rect x="${x - 40}" y="${y - 13}" width="80" height="26" rx="6"`
          : `<polygon points="${[
              [-46, 0],
              [-36, -15],
              [36, -15],
              [46, 0],
              [36, 15],
              [-36, 15],
            ]
              .map(([dx, dy]) => `${x + dx!},${y + dy!}`)
              .join(" ")}"`;
    parts.push(`${shape} fill="${n.fill}" stroke="#404040" stroke-width="${n.kind === "target" ? 3 : 1}"/>`);
    parts.push(`<text x="${x}" y="${y + 4}" text-anchor="middle" fill="${n.label}">${esc(n.symbol)}</text>`);
  }
  // The key: a colour bar, then the three lines of the legend.
  const ky = TITLE_H + gh + 8;
  parts.push(
    `<defs><linearGradient id="key"><stop offset="0" stop-color="${KEY.down}"/><stop offset="0.5" stop-color="${KEY.zero}"/><stop offset="1" stop-color="${KEY.up}"/></linearGradient></defs>`,
    `<rect x="${pad}" y="${ky}" width="160" height="10" fill="url(#key)" stroke="#999"/>`,
    `<text x="${pad}" y="${ky + 22}" font-size="10">−${num(model.colourLimit)}</text>`,
    `<text x="${pad + 80}" y="${ky + 22}" font-size="10" text-anchor="middle">0</text>`,
    `<text x="${pad + 160}" y="${ky + 22}" font-size="10" text-anchor="end">+${num(model.colourLimit)}</text>`,
  );
  legendText(model).forEach((line, i) =>
    parts.push(`<text x="${pad + 180}" y="${ky + 10 + i * 16}" font-size="11">${esc(line)}</text>`),
  );
  parts.push("</svg>");
  return parts.join("\n");
}

/** A PNG of the graph (Cytoscape's own drawing) with the title above and the legend below. */
export async function graphPng(cy: cytoscape.Core, model: GraphModel, title: string): Promise<Blob> {
  const scale = 2;
  const drawn = await cy.png({ full: true, scale, bg: "#ffffff", output: "blob-promise" });
  const image = await createImageBitmap(drawn);
  const w = Math.max(MIN_W * scale, image.width);
  const canvas = document.createElement("canvas");
  canvas.width = w;
  canvas.height = image.height + (TITLE_H + LEGEND_H) * scale;
  const g = canvas.getContext("2d")!;
  g.fillStyle = "#fff";
  g.fillRect(0, 0, canvas.width, canvas.height);
  g.scale(scale, scale);
  g.fillStyle = "#111";
  g.font = "bold 18px sans-serif";
  g.fillText(title, 20, 28);
  g.drawImage(image, 0, TITLE_H, image.width / scale, image.height / scale);
  const ky = TITLE_H + image.height / scale + 8;
  const bar = g.createLinearGradient(20, 0, 180, 0);
  bar.addColorStop(0, KEY.down);
  bar.addColorStop(0.5, KEY.zero);
  bar.addColorStop(1, KEY.up);
  g.fillStyle = bar;
  g.fillRect(20, ky, 160, 10);
  g.strokeStyle = "#999";
  g.strokeRect(20, ky, 160, 10);
  g.fillStyle = "#111";
  g.font = "10px sans-serif";
  g.fillText(`−${num(model.colourLimit)}`, 20, ky + 22);
  g.fillText("0", 97, ky + 22);
  g.fillText(`+${num(model.colourLimit)}`, 160, ky + 22);
  g.font = "11px sans-serif";
  legendText(model).forEach((line, i) => g.fillText(line, 200, ky + 10 + i * 16));
  return new Promise((resolve, reject) =>
    canvas.toBlob((b) => (b ? resolve(b) : reject(new Error("the PNG could not be made"))), "image/png"),
  );
}

/** Saves a blob under a file name through a temporary link. */
export function saveBlob(name: string, blob: Blob): void {
  const url = URL.createObjectURL(blob);
  const a = document.createElement("a");
  a.href = url;
  a.download = name;
  document.body.append(a);
  a.click();
  a.remove();
  setTimeout(() => URL.revokeObjectURL(url), 10_000);
}
