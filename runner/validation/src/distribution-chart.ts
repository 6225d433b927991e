/**
 * The chart of `npm run validate` for many cases: per group of cases (all, then each source), the
 * cumulative share of cases whose expected target has q at most x, x on a log axis from 1/(|S|−1)
 * to 1, one line per method. A better method's line rises earlier; random is the diagonal of a
 * linear axis (here a convex curve); the 5 % mark is drawn.
 */
import { createCanvas, type SKRSContext2D } from "@napi-rs/canvas";
import { font } from "@causeway/runner/graph/style";

export interface DistributionChartInput {
  title: string;
  subtitle: string;
  /** Floor of the log axis. */
  qMin: number;
  /** One panel per group: per method, the q of its cases (nulls already dropped). */
  panels: { title: string; series: { method: string; q: number[] }[] }[];
}

const PANEL_W = 420;
const PANEL_H = 300;
const PAD = { left: 56, right: 16, top: 34, bottom: 42 };
const COLOURS = [
  "#08306b",
  "#2171b5",
  "#e6550d",
  "#31a354",
  "#756bb1",
  "#d6616b",
  "#969696",
  "#8c6d31",
  "#17becf",
];

export function renderDistributionChart(input: DistributionChartInput): Buffer {
  const cols = Math.min(3, input.panels.length);
  const rows = Math.ceil(input.panels.length / cols);
  const width = cols * PANEL_W + 20;
  const legendH = 28;
  const height = 70 + legendH + rows * PANEL_H + 10;
  const canvas = createCanvas(width, height);
  const ctx = canvas.getContext("2d");
  ctx.fillStyle = "white";
  ctx.fillRect(0, 0, width, height);
  ctx.fillStyle = "black";
  ctx.font = font(13, true);
  ctx.fillText(input.title, 12, 22);
  ctx.font = font(11);
  ctx.fillText(input.subtitle, 12, 42);
  const methods = [...new Set(input.panels.flatMap((p) => p.series.map((s) => s.method)))];
  const colour = (m: string): string => COLOURS[methods.indexOf(m) % COLOURS.length]!;
  let lx = 12;
  for (const m of methods) {
    ctx.fillStyle = colour(m);
    ctx.fillRect(lx, 58, 14, 4);
    ctx.fillStyle = "black";
    ctx.fillText(m, lx + 18, 64);
    lx += 26 + ctx.measureText(m).width;
  }
  input.panels.forEach((p, i) =>
    panel(
      ctx,
      10 + (i % cols) * PANEL_W,
      70 + legendH + Math.floor(i / cols) * PANEL_H,
      p,
      input.qMin,
      colour,
    ),
  );
  return canvas.toBuffer("image/png");
}

function panel(
  ctx: SKRSContext2D,
  x0: number,
  y0: number,
  p: DistributionChartInput["panels"][number],
  qMin: number,
  colour: (m: string) => string,
): void {
  const w = PANEL_W - PAD.left - PAD.right;
  const h = PANEL_H - PAD.top - PAD.bottom;
  const left = x0 + PAD.left;
  const top = y0 + PAD.top;
  const lo = Math.log10(qMin);
  const xOf = (q: number): number => left + ((Math.log10(Math.max(q, qMin)) - lo) / -lo) * w;
  const yOf = (f: number): number => top + (1 - f) * h;
  ctx.fillStyle = "black";
  ctx.font = font(11, true);
  const n = Math.max(0, ...p.series.map((s) => s.q.length));
  ctx.fillText(`${p.title} (${n} cases)`, left, y0 + 20);
  ctx.strokeStyle = "#bbbbbb";
  ctx.lineWidth = 1;
  ctx.strokeRect(left, top, w, h);
  ctx.font = font(9);
  for (let e = Math.ceil(lo); e <= 0; e++) {
    const x = xOf(10 ** e);
    ctx.beginPath();
    ctx.moveTo(x, top + h);
    ctx.lineTo(x, top + h + 4);
    ctx.stroke();
    ctx.fillText(e === 0 ? "1" : `1e${e}`, x - 8, top + h + 15);
  }
  for (const f of [0, 0.25, 0.5, 0.75, 1]) {
    ctx.fillText(f.toFixed(2), x0 + 20, yOf(f) + 3);
  }
  ctx.fillText("q of the expected target (log)", left + w / 2 - 60, top + h + 32);
  // The 5 % mark.
  ctx.setLineDash([3, 3]);
  ctx.beginPath();
  ctx.moveTo(xOf(0.05), top);
  ctx.lineTo(xOf(0.05), top + h);
  ctx.stroke();
  ctx.setLineDash([]);
  ctx.lineWidth = 1.6;
  for (const s of p.series) {
    const q = [...s.q].sort((a, b) => a - b);
    if (q.length === 0) continue;
    ctx.strokeStyle = colour(s.method);
    ctx.beginPath();
    ctx.moveTo(xOf(qMin), yOf(0));
    q.forEach((v, i) => {
      ctx.lineTo(xOf(v), yOf(i / q.length));
      ctx.lineTo(xOf(v), yOf((i + 1) / q.length));
    });
    ctx.lineTo(xOf(1), yOf(1));
    ctx.stroke();
  }
}
