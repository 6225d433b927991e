/** Small formatting helpers shared by the pages. */
import { symbolOf } from "@causeway/contract";

export const symbol = (id: string | null | undefined): string => (id ? symbolOf(id) : "");

export function dateTime(iso: string | null | undefined): string {
  if (!iso) return "—";
  const d = new Date(iso);
  return d.toLocaleString(undefined, {
    year: "numeric",
    month: "short",
    day: "numeric",
    hour: "2-digit",
    minute: "2-digit",
  });
}

export function duration(from: string | null | undefined, to: string | null | undefined): string {
  if (!from || !to) return "—";
  const s = Math.max(0, (Date.parse(to) - Date.parse(from)) / 1000);
  return s < 90 ? `${s.toFixed(s < 10 ? 1 : 0)} s` : `${Math.floor(s / 60)} min ${Math.round(s % 60)} s`;
}

/** A number for a table cell: p-values in scientific notation, others to 3–4 significant digits. */
export function num(v: number, column = ""): string {
  if (!Number.isFinite(v)) return "—";
  if (Number.isInteger(v) && Math.abs(v) < 1e6) return String(v);
  if (/^(pvalue|qvalue)/.test(column) || (v !== 0 && Math.abs(v) < 1e-3)) return v.toExponential(2);
  return v.toPrecision(4).replace(/\.?0+$/, "");
}

export const stepName = (step: string | null | undefined): string => (step ? step.replaceAll("_", " ") : "");
