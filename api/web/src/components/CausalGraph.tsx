/**
 * The causal graph of a target as an interactive network (Cytoscape.js): the PNG's layers,
 * nodes coloured by log2 fold change, edges by sign (green activation, red inhibition, grey
 * unknown; dashed = transcriptional), width by path score. Click a node for the paths through
 * it. Export as PNG (Cytoscape) or SVG (written here from the same positions: the only SVG
 * extension of Cytoscape is GPL-licensed).
 */
import cytoscape from "cytoscape";
import { useEffect, useMemo, useRef, useState } from "preact/hooks";
import type { CausalGraphInputs } from "@causeway/runner/graph/inputs";
import { graphModel, pathsThrough, type GraphModel } from "../graph-model.ts";
import { num } from "../format.ts";

function download(name: string, href: string) {
  const a = document.createElement("a");
  a.href = href;
  a.download = name;
  document.body.append(a);
  a.click();
  a.remove();
}

const esc = (s: string) => s.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);

/** An SVG of the graph at the positions Cytoscape shows. */
function toSvg(cy: cytoscape.Core, model: GraphModel): string {
  const bb = cy.elements().boundingBox({});
  const pad = 20;
  const w = Math.ceil(bb.w + 2 * pad);
  const h = Math.ceil(bb.h + 2 * pad);
  const X = (x: number) => (x - bb.x1 + pad).toFixed(1);
  const Y = (y: number) => (y - bb.y1 + pad).toFixed(1);
  const parts: string[] = [
    `<svg xmlns="http://www.w3.org/2000/svg" width="${w}" height="${h}" viewBox="0 0 ${w} ${h}" font-family="sans-serif" font-size="12">`,
    `<rect width="100%" height="100%" fill="#fff"/>`,
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
  parts.push("</svg>");
  return parts.join("\n");
}

export function CausalGraph({
  inputs,
  title,
  topN = 20,
}: {
  inputs: CausalGraphInputs;
  title: string;
  topN?: number;
}) {
  const box = useRef<HTMLDivElement>(null);
  const cyRef = useRef<cytoscape.Core | null>(null);
  const [n, setN] = useState(Math.min(topN, Math.max(1, inputs.degs.length)));
  const [selected, setSelected] = useState<string | null>(null);
  const model = useMemo(() => graphModel(inputs, n), [inputs, n]);

  useEffect(() => {
    if (!box.current) return;
    const cy = cytoscape({
      container: box.current,
      elements: [
        ...model.nodes.map((node) => ({
          data: { id: node.id, label: node.symbol, fill: node.fill, text: node.label, kind: node.kind },
          position: { x: node.x, y: node.y },
        })),
        ...model.edges.map((e) => ({
          data: {
            id: e.id,
            source: e.source,
            target: e.target,
            colour: e.colour,
            width: e.width,
            sign: e.sign,
            type: e.type,
          },
        })),
      ],
      layout: { name: "preset", fit: true, padding: 24 },
      minZoom: 0.2,
      maxZoom: 3,
      wheelSensitivity: 0.3,
      style: [
        {
          selector: "node",
          style: {
            label: "data(label)",
            "background-color": "data(fill)",
            color: "data(text)",
            "font-size": 11,
            "font-family": "system-ui, sans-serif",
            "text-valign": "center",
            "text-halign": "center",
            width: 80,
            height: 26,
            "border-width": 1,
            "border-color": "#404040",
          },
        },
        {
          selector: 'node[kind = "target"]',
          style: {
            shape: "hexagon",
            "border-width": 3,
            "border-color": "#000",
            width: 92,
            height: 30,
            "font-weight": "bold",
          },
        },
        { selector: 'node[kind = "intermediary"]', style: { shape: "ellipse" } },
        { selector: 'node[kind = "deg"]', style: { shape: "round-rectangle" } },
        { selector: "node:selected", style: { "border-width": 4, "border-color": "#f59e0b" } },
        {
          selector: "edge",
          style: {
            "curve-style": "bezier",
            width: "data(width)",
            "line-color": "data(colour)",
            "target-arrow-color": "data(colour)",
            "target-arrow-shape": "triangle",
            "arrow-scale": 0.9,
            opacity: 0.85,
          },
        },
        { selector: "edge[sign < 0]", style: { "target-arrow-shape": "tee" } },
        { selector: 'edge[type = "transcriptional"]', style: { "line-style": "dashed" } },
        { selector: ".faded", style: { opacity: 0.15 } },
      ],
    });
    cy.on("tap", "node", (e) => {
      const id = e.target.id() as string;
      setSelected(id);
      const through = cy.collection();
      for (const p of inputs.paths)
        if (p.nodes.includes(id)) for (const nid of p.nodes) through.merge(cy.getElementById(nid));
      cy.elements().addClass("faded");
      through.removeClass("faded");
      through.edgesWith(through).removeClass("faded");
    });
    cy.on("tap", (e) => {
      if (e.target === cy) {
        setSelected(null);
        cy.elements().removeClass("faded");
      }
    });
    // Test hooks: where the target is drawn, in pixels from the container's top left, and the
    // zoom (labels are drawn at 11 px times the zoom).
    const mark = () => {
      const t = cy.getElementById(inputs.target).renderedPosition();
      box.current?.setAttribute("data-target-position", `${Math.round(t.x)},${Math.round(t.y)}`);
      box.current?.setAttribute("data-zoom", cy.zoom().toFixed(2));
    };
    cy.on("viewport", mark);
    cy.ready(mark);
    cyRef.current = cy;
    return () => {
      cy.destroy();
      cyRef.current = null;
    };
  }, [model]);

  const safeName = title.replace(/[^A-Za-z0-9._-]+/g, "_");
  const paths = selected ? pathsThrough(inputs, model, selected) : [];
  const sel = model.nodes.find((x) => x.id === selected);
  return (
    <div class="graph-wrap">
      <div class="graph-toolbar">
        <label>
          DEGs shown{" "}
          <input
            type="number"
            min={1}
            max={Math.max(1, inputs.degs.length)}
            value={n}
            onChange={(e) =>
              setN(
                Math.max(
                  1,
                  Math.min(inputs.degs.length || 1, Number((e.target as HTMLInputElement).value) || 1),
                ),
              )
            }
          />
        </label>
        <span class="muted small">
          {model.selection.degsShown} of {inputs.degs.length} impacted DEGs, {model.selection.pathsShown}{" "}
          paths, {model.nodes.length} nodes
          {model.selection.pathsOmitted > 0
            ? ` (${model.selection.pathsOmitted} paths left out by the 250-node cap)`
            : ""}
        </span>
        <span class="spacer" />
        <button
          type="button"
          onClick={() =>
            cyRef.current &&
            download(`${safeName}.png`, cyRef.current.png({ full: true, scale: 2, bg: "#ffffff" }))
          }
        >
          Export PNG
        </button>
        <button
          type="button"
          onClick={() => {
            if (!cyRef.current) return;
            const url = URL.createObjectURL(
              new Blob([toSvg(cyRef.current, model)], { type: "image/svg+xml" }),
            );
            download(`${safeName}.svg`, url);
            setTimeout(() => URL.revokeObjectURL(url), 10_000);
          }}
        >
          Export SVG
        </button>
      </div>
      <div class="graph-body">
        <div
          class="graph"
          ref={box}
          data-testid="causal-graph"
          data-target={inputs.target}
          role="img"
          aria-label={`Causal graph of ${title}`}
        />
        <aside class="graph-side" data-testid="graph-side">
          {sel ? (
            <>
              <h4>
                {sel.symbol} <span class="muted small">{sel.kind === "deg" ? "DEG" : sel.kind}</span>
              </h4>
              <p class="small">log2 fold change: {sel.log2fc === null ? "not measured" : num(sel.log2fc)}</p>
              <p class="small muted">
                {paths.length} path{paths.length === 1 ? "" : "s"} through it:
              </p>
              <ol class="paths" data-testid="node-paths">
                {paths.slice(0, 30).map((p, i) => (
                  <li key={i}>
                    {p.symbols.join(" → ")} <span class="muted small">({num(p.score)})</span>
                  </li>
                ))}
              </ol>
            </>
          ) : (
            <div class="legend small">
              <p>Click a node to see the paths through it.</p>
              <p>
                <span class="swatch" style={{ background: "#2166ac" }} /> down ·
                <span class="swatch" style={{ background: "#f7f7f7" }} /> 0 ·
                <span class="swatch" style={{ background: "#b2182b" }} /> up (log2 fold change, ±
                {num(model.colourLimit)}); grey = not measured
              </p>
              <p>
                <span class="line green" /> activation · <span class="line red" /> inhibition ·{" "}
                <span class="line grey" /> unknown sign; dashed = transcriptional
              </p>
              <p>⬡ target · ◯ intermediary protein · ▭ DEG (its transcript)</p>
            </div>
          )}
        </aside>
      </div>
    </div>
  );
}
