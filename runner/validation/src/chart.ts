/**
 * The validation chart: methods (rows) × cases (columns), one dot per cell whose colour and
 * size follow q on a log axis (dark and large = the expected target near the top), with q
 * printed in the cell and a column of per-method medians. Readable at a glance: a good
 * method is a dark row.
 */
import { createCanvas } from "@napi-rs/canvas";
import { font } from "@causeway/runner/graph/style";

export interface ChartInput {
  title: string;
  subtitle: string;
  methods: string[];
  cases: string[];
  /** q[method][case]; NaN = not applicable. */
  q: number[][];
  /** Floor of the log axis (1/(|S|−1)). */
  qMin: number;
  /** Summary columns: the median q over the named cases (e.g. the shared cases, all cases). */
  medians: { label: string; cases: string[] }[];
}

const CELL_W = 92;
const CELL_H = 34;
const LEFT = 150;
const TOP = 150;

/** Colour of log10 q between log10 qMin (dark blue) and 0 (light grey). */
function colourOf(q: number, qMin: number): string {
  const t = Math.min(1, Math.max(0, Math.log10(Math.max(q, qMin)) / Math.log10(qMin)));
  // Interpolate light grey (235,235,235) → dark blue (8,48,107).
  const c = (a: number, b: number): number => Math.round(a + (b - a) * t);
  return `rgb(${c(235, 8)},${c(235, 48)},${c(235, 107)})`;
}

const label = (q: number): string =>
  !Number.isFinite(q) ? "–" : q === 0 ? "0" : q < 0.001 ? q.toExponential(0) : q.toFixed(3);

/** PNG bytes of the chart. */
export function renderValidationChart(input: ChartInput): Buffer {
  const cols = [...input.cases, ...input.medians.map((m) => m.label)];
  const width = LEFT + cols.length * CELL_W + 200;
  const height = TOP + input.methods.length * CELL_H + 90;
  const canvas = createCanvas(width, height);
  const ctx = canvas.getContext("2d");
  ctx.fillStyle = "white";
  ctx.fillRect(0, 0, width, height);
  ctx.fillStyle = "black";
  ctx.font = font(11, true);
  ctx.fillText(input.title, 12, 22);
  ctx.font = font(8);
  ctx.fillText(input.subtitle, 12, 40);

  ctx.font = font(7.5);
  cols.forEach((c, j) => {
    ctx.save();
    ctx.translate(LEFT + j * CELL_W + CELL_W / 2, TOP - 8);
    ctx.rotate(-Math.PI / 5);
    ctx.fillStyle = "black";
    ctx.fillText(c, 0, 0);
    ctx.restore();
  });
  const sorted = (xs: number[]): number[] => xs.filter(Number.isFinite).sort((a, b) => a - b);
  input.methods.forEach((m, i) => {
    const y = TOP + i * CELL_H;
    ctx.fillStyle = i % 2 === 0 ? "#f7f7f7" : "white";
    ctx.fillRect(0, y, width - 200, CELL_H);
    ctx.fillStyle = "black";
    ctx.font = font(8.5, m.startsWith("v2") || m.startsWith("v1"));
    ctx.fillText(m, 12, y + CELL_H / 2 + 4);
    const row = input.q[i]!;
    const medianOf = (cases: string[]): number => {
      const s = sorted(cases.map((c) => row[input.cases.indexOf(c)] ?? NaN));
      if (s.length === 0) return NaN;
      return s.length % 2 ? s[(s.length - 1) / 2]! : (s[s.length / 2 - 1]! + s[s.length / 2]!) / 2;
    };
    [...row, ...input.medians.map((m) => medianOf(m.cases))].forEach((q, j) => {
      const cx = LEFT + j * CELL_W + 16;
      const cy = y + CELL_H / 2;
      if (Number.isFinite(q)) {
        const t = Math.min(1, Math.max(0, Math.log10(Math.max(q, input.qMin)) / Math.log10(input.qMin)));
        ctx.beginPath();
        ctx.arc(cx, cy, 4 + 9 * t, 0, 2 * Math.PI);
        ctx.fillStyle = colourOf(q, input.qMin);
        ctx.fill();
        if (q <= 0.05) {
          ctx.strokeStyle = "#b2182b";
          ctx.lineWidth = 1.5;
          ctx.stroke();
        }
      }
      ctx.fillStyle = "black";
      ctx.font = font(7.5, j >= row.length);
      ctx.fillText(label(q), cx + 16, cy + 4);
    });
  });

  // Legend: the log axis of q.
  const lx = width - 185;
  const ly = TOP;
  ctx.font = font(8, true);
  ctx.fillStyle = "black";
  ctx.fillText("q (rank quantile, log axis)", lx, ly - 12);
  ctx.font = font(7.5);
  const ticks = [1, 0.5, 0.1, 0.05, 0.01, 0.001, input.qMin];
  ticks.forEach((q, k) => {
    const yy = ly + 10 + k * 26;
    const t = Math.min(1, Math.max(0, Math.log10(Math.max(q, input.qMin)) / Math.log10(input.qMin)));
    ctx.beginPath();
    ctx.arc(lx + 14, yy, 4 + 9 * t, 0, 2 * Math.PI);
    ctx.fillStyle = colourOf(q, input.qMin);
    ctx.fill();
    ctx.fillStyle = "black";
    ctx.fillText(q === input.qMin ? `${label(q)} (rank 1)` : label(q), lx + 34, yy + 4);
  });
  ctx.fillText("red ring: q ≤ 0.05 (top 5 %)", lx, ly + 10 + ticks.length * 26);
  ctx.fillText("0 best, 0.5 random", lx, ly + 24 + ticks.length * 26);
  return canvas.toBuffer("image/png");
}
