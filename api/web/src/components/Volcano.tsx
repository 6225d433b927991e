/**
 * Volcano plot of the DE table (degs.tsv): log2 fold change against −log10 adjusted p-value,
 * DEGs coloured by direction. Hover shows the gene; a click picks it (the page searches the
 * target table for it). Drawn with Observable Plot after the table is on screen. Its text
 * alternative says what it shows, and `GeneList` does what a click does from the keyboard: a
 * search over the plot's genes, most significant first.
 */
import * as Plot from "@observablehq/plot";
import { useEffect, useId, useMemo, useRef, useState } from "preact/hooks";
import { KeyList } from "./KeyList.tsx";
import { genesMatching, volcanoSummary } from "./volcano-genes.ts";

export interface DegPoint {
  gene: string;
  log2fc: number;
  p: number;
  isDeg: boolean;
}

/** Rows of degs.tsv with a fold change and a p-value. */
export function parseDegs(tsv: string): DegPoint[] {
  const [header, ...lines] = tsv.split(/\r?\n/);
  const cols = (header ?? "").split("\t");
  const at = (c: string) => cols.indexOf(c);
  const [g, fc, padj, pv, deg] = [at("gene"), at("log2FC"), at("padj"), at("pvalue"), at("is_deg")];
  const out: DegPoint[] = [];
  for (const line of lines) {
    if (line === "") continue;
    const c = line.split("\t");
    const log2fc = Number(c[fc]);
    let p = Number(c[padj >= 0 ? padj : pv]);
    if (!Number.isFinite(p) && pv >= 0) p = Number(c[pv]);
    if (!Number.isFinite(log2fc) || !Number.isFinite(p) || c[fc] === "NA") continue;
    out.push({
      gene: c[g] ?? "",
      log2fc,
      p: Math.max(p, 1e-300),
      isDeg: c[deg] === "TRUE" || c[deg] === "true",
    });
  }
  return out;
}

/** The plot and its keyboard list: the DE table's genes, the one marked, what choosing one does. */
interface VolcanoProps {
  points: DegPoint[];
  highlight: string | null;
  onPick: (gene: string) => void;
}

export function Volcano({ points, highlight, onPick }: VolcanoProps) {
  const box = useRef<HTMLDivElement>(null);
  // Drawn at the box's width, and again when the box changes width.
  const [boxWidth, setBoxWidth] = useState(0);
  useEffect(() => {
    if (!box.current) return;
    const observer = new ResizeObserver(([entry]) => {
      const w = Math.round(entry?.contentRect.width ?? 0);
      setBoxWidth((old) => (Math.abs(old - w) > 8 ? w : old));
    });
    observer.observe(box.current);
    return () => observer.disconnect();
  }, []);
  useEffect(() => {
    if (!box.current || boxWidth === 0) return;
    const width = Math.max(280, boxWidth);
    const dir = (d: DegPoint) => (!d.isDeg ? "not a DEG" : d.log2fc > 0 ? "up" : "down");
    const marked = highlight ? points.filter((d) => d.gene === highlight) : [];
    const plot = Plot.plot({
      width,
      height: 360,
      marginLeft: 52,
      style: { fontFamily: "inherit", fontSize: "12px", overflow: "visible" },
      x: { label: "log2 fold change (perturbed vs control) →", grid: true },
      y: { label: "↑ −log10 adjusted p-value", grid: true },
      color: { domain: ["down", "not a DEG", "up"], range: ["#2166ac", "#c8c8c8", "#b2182b"] },
      marks: [
        Plot.ruleX([0], { stroke: "#999" }),
        Plot.dot(points, {
          x: "log2fc",
          y: (d: DegPoint) => -Math.log10(d.p),
          fill: dir,
          r: 2.2,
          fillOpacity: 0.75,
        }),
        Plot.dot(marked, {
          x: "log2fc",
          y: (d: DegPoint) => -Math.log10(d.p),
          r: 7,
          stroke: "#f59e0b",
          strokeWidth: 3,
          fill: "none",
        }),
        Plot.text(marked, {
          x: "log2fc",
          y: (d: DegPoint) => -Math.log10(d.p),
          text: "gene",
          dy: -14,
          fontWeight: "bold",
        }),
        Plot.tip(
          points,
          Plot.pointer({
            x: "log2fc",
            y: (d: DegPoint) => -Math.log10(d.p),
            title: (d: DegPoint) =>
              `${d.gene}\nlog2FC ${d.log2fc.toFixed(2)}\nadj. p ${d.p.toExponential(2)}`,
          }),
        ),
      ],
    });
    let current: DegPoint | null = null;
    plot.addEventListener("input", () => {
      current = (plot as unknown as { value: DegPoint | null }).value;
    });
    plot.addEventListener("click", () => {
      if (current) onPick(current.gene);
    });
    // The container is the accessible image (role img with a label); Plot labels its inner <g>
    // groups, which assistive technology would otherwise read as unlabeled generic elements.
    plot.setAttribute("aria-hidden", "true");
    // Plot's own <style> element would be refused by the page's CSP: its rules are in styles.css.
    for (const style of plot.querySelectorAll("style")) style.remove();
    box.current.replaceChildren(plot);
    return () => plot.remove();
  }, [points, highlight, boxWidth]);
  const summary = useMemo(() => volcanoSummary(points), [points]);
  return (
    <div
      class="volcano"
      ref={box}
      data-testid="volcano-plot"
      role="img"
      aria-label={`${summary} Its genes can be searched in the list below the plot.`}
    />
  );
}

/** How many genes the keyboard list shows at once. */
const LISTED = 20;

/**
 * The plot's genes as a searchable list (a collapsed line under the plot): the most significant
 * first, or those a search names; choosing one does what clicking its dot does.
 */
export function GeneList({ points, highlight, onPick }: VolcanoProps) {
  const [query, setQuery] = useState("");
  const shown = useMemo(() => genesMatching(points, query, LISTED), [points, query]);
  const items = useMemo(
    () =>
      shown.map((d) => ({
        id: d.gene,
        label: d.gene,
        detail: `log2FC ${d.log2fc.toFixed(2)}, adj. p ${d.p.toExponential(1)}`,
      })),
    [shown],
  );
  const inputId = useId();
  const q = query.trim();
  return (
    <details class="key-details" data-testid="volcano-gene-list">
      <summary>
        Find a gene of the plot{" "}
        <span class="muted small">(a list: the most significant first, or search)</span>
      </summary>
      <div class="key-search">
        <label for={inputId}>Gene</label>
        <input
          id={inputId}
          type="search"
          value={query}
          placeholder="e.g. GBP1"
          autocomplete="off"
          data-testid="volcano-gene-search"
          onInput={(e) => setQuery((e.target as HTMLInputElement).value)}
          onKeyDown={(e) => {
            // Enter picks the first gene listed (the exact name when there is one).
            if (e.key === "Enter" && shown[0] && q !== "") {
              e.preventDefault();
              onPick(shown[0].gene);
            }
          }}
        />
      </div>
      <p class="small muted" role="status">
        {q === ""
          ? `The ${Math.min(LISTED, points.length)} most significant of ${points.length.toLocaleString("en")} genes; Enter finds one among the candidates.`
          : shown.length === 0
            ? `No gene of the DE table matches “${q}”.`
            : `${shown.length}${shown.length === LISTED ? " or more" : ""} gene${shown.length === 1 ? "" : "s"} match “${q}”; Enter finds the first among the candidates.`}
      </p>
      {shown.length > 0 && (
        <KeyList
          items={items}
          label="Genes of the volcano plot"
          chosen={highlight}
          onChoose={onPick}
          testid="volcano-genes"
        />
      )}
    </details>
  );
}
