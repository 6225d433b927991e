/**
 * The volcano plot in words and as a list (its keyboard and screen-reader stand-in): a sentence
 * saying what it shows, and the genes a search names, most significant first.
 */
import type { DegPoint } from "./Volcano.tsx";

const count = (n: number) => n.toLocaleString("en");

/** Most significant first (smallest p-value), then the larger fold change, then by name. */
function bySignificance(a: DegPoint, b: DegPoint): number {
  return a.p - b.p || Math.abs(b.log2fc) - Math.abs(a.log2fc) || (a.gene < b.gene ? -1 : 1);
}

/**
 * "Volcano plot of 12,000 genes of the DE table: 433 DEGs, 210 up and 223 down; most significant:
 * GBP1, STAT1, IRF1."
 */
export function volcanoSummary(points: readonly DegPoint[]): string {
  const degs = points.filter((d) => d.isDeg);
  const up = degs.filter((d) => d.log2fc > 0).length;
  const top = [...points]
    .sort(bySignificance)
    .slice(0, 3)
    .map((d) => d.gene);
  return (
    `Volcano plot of ${count(points.length)} gene${points.length === 1 ? "" : "s"} of the DE table: ` +
    `${count(degs.length)} DEG${degs.length === 1 ? "" : "s"}, ${count(up)} up and ${count(degs.length - up)} down` +
    (top.length ? `; most significant: ${top.join(", ")}.` : ".")
  );
}

/**
 * At most `n` genes of the plot for a search: with no query the most significant; otherwise the
 * gene of that exact name first, then the genes whose name starts with it, then those that
 * contain it, each most significant first (case-insensitive).
 */
export function genesMatching(points: readonly DegPoint[], query: string, n = 20): DegPoint[] {
  const q = query.trim().toUpperCase();
  const sorted = [...points].sort(bySignificance);
  if (q === "") return sorted.slice(0, n);
  const tier = (d: DegPoint) => {
    const g = d.gene.toUpperCase();
    return g === q ? 0 : g.startsWith(q) ? 1 : g.includes(q) ? 2 : 3;
  };
  return sorted
    .map((d) => ({ d, t: tier(d) }))
    .filter((x) => x.t < 3)
    .sort((a, b) => a.t - b.t)
    .slice(0, n)
    .map((x) => x.d);
}
