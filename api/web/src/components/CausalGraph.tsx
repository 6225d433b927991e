/**
 * The causal graph of a target as an interactive network (Cytoscape.js): the PNG's layers,
 * nodes coloured by log2 fold change, edges by sign (green activation, red inhibition, grey
 * unknown; dashed = transcriptional), width by path score. Click a node for the paths through
 * it; the same nodes are a keyboard list below the graph (Enter shows a node's paths), and the
 * graph's text alternative says what it shows. Exported as PNG or SVG with title and legend (graph-export.ts), and, when the caller can
 * fetch it, as a network file for Cytoscape (CX2, GraphML or SIF from the service's export route,
 * so the file is the one the command line and the API give). The view refits when its box changes
 * size (a phone turned, a window resized).
 */
import cytoscape from "cytoscape";
import { useEffect, useMemo, useRef, useState } from "preact/hooks";
import type { CausalGraphInputs } from "@causeway/runner/graph/inputs";
import { graphModel, graphSummary, KIND_WORDS, nodesInReadingOrder, pathsThrough } from "../graph-model.ts";
import { graphPng, graphSvg, saveBlob } from "./graph-export.ts";
import { num } from "../format.ts";
import { explain } from "../explain.ts";
import type { GraphExportFormat } from "../client.ts";
import { KeyList, type KeyItem } from "./KeyList.tsx";

/** The service's network export of this graph with `topNDegs` DEGs, as text. */
export type NetworkExport = (format: GraphExportFormat, topNDegs: number) => Promise<string>;

/** Fades all but the paths through `id` and marks it, as a click on it does; null shows all. */
function showPathsThrough(cy: cytoscape.Core, inputs: CausalGraphInputs, id: string | null): void {
  cy.elements().unselect();
  // Test hook: the node whose paths the graph shows.
  cy.container()?.setAttribute("data-selected", id ?? "");
  if (id === null || cy.getElementById(id).empty()) {
    cy.elements().removeClass("faded");
    return;
  }
  const through = cy.collection();
  for (const p of inputs.paths)
    if (p.nodes.includes(id)) for (const nid of p.nodes) through.merge(cy.getElementById(nid));
  cy.elements().addClass("faded");
  through.removeClass("faded");
  through.edgesWith(through).removeClass("faded");
  cy.getElementById(id).select();
}

const NETWORK_FORMATS: { format: GraphExportFormat; label: string; type: string }[] = [
  { format: "cx2", label: "CX2", type: "application/json" },
  { format: "graphml", label: "GraphML", type: "application/graphml+xml" },
  { format: "sif", label: "SIF", type: "text/plain" },
];

export function CausalGraph({
  inputs,
  title,
  topN = 20,
  networkExport,
}: {
  inputs: CausalGraphInputs;
  title: string;
  topN?: number;
  networkExport?: NetworkExport | undefined;
}) {
  const [exporting, setExporting] = useState(false);
  const [exportError, setExportError] = useState<string | null>(null);
  const box = useRef<HTMLDivElement>(null);
  const cyRef = useRef<cytoscape.Core | null>(null);
  const [n, setN] = useState(Math.min(topN, Math.max(1, inputs.degs.length)));
  const [selected, setSelected] = useState<string | null>(null);
  const selectedRef = useRef(selected);
  selectedRef.current = selected;
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
      showPathsThrough(cy, inputs, id);
    });
    cy.on("tap", (e) => {
      if (e.target === cy) {
        setSelected(null);
        showPathsThrough(cy, inputs, null);
      }
    });
    // Test hooks: where the target is drawn, in pixels from the container's top left, and the
    // zoom (labels are drawn at 11 px times the zoom).
    const mark = () => {
      const t = cy.getElementById(inputs.target).renderedPosition();
      box.current?.setAttribute("data-target-position", `${Math.round(t.x)},${Math.round(t.y)}`);
      box.current?.setAttribute("data-zoom", cy.zoom().toFixed(2));
    };
    // A node chosen before "DEGs shown" changed stays chosen in the redrawn graph.
    if (selectedRef.current) showPathsThrough(cy, inputs, selectedRef.current);
    cy.on("viewport", mark);
    cy.ready(mark);
    cyRef.current = cy;
    const resized = new ResizeObserver(() => {
      cy.resize();
      cy.fit(undefined, 24);
    });
    resized.observe(box.current);
    return () => {
      resized.disconnect();
      cy.destroy();
      cyRef.current = null;
    };
  }, [model]);

  const safeName = `causal_graph_${title.replace(/[^A-Za-z0-9._-]+/g, "_")}`;
  const exportTitle = `Causal graph of ${title}: top ${model.selection.degsShown} impacted DEGs, ${model.selection.pathsShown} paths`;
  const paths = selected ? pathsThrough(inputs, model, selected) : [];
  const sel = model.nodes.find((x) => x.id === selected);
  /** The keyboard list's choice: what a click on the node does. */
  const choose = (id: string | null) => {
    setSelected(id);
    if (cyRef.current) showPathsThrough(cyRef.current, inputs, id);
  };
  const summary = graphSummary(model, title);
  const nodeItems = useMemo<KeyItem[]>(
    () =>
      nodesInReadingOrder(model).map((node) => ({
        id: node.id,
        label: node.symbol,
        detail: KIND_WORDS[node.kind] ?? node.kind,
      })),
    [model],
  );
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
          data-testid="export-png"
          onClick={() => {
            if (cyRef.current)
              void graphPng(cyRef.current, model, exportTitle).then((b) => saveBlob(`${safeName}.png`, b));
          }}
        >
          Export PNG
        </button>
        <button
          type="button"
          data-testid="export-svg"
          onClick={() => {
            if (cyRef.current)
              saveBlob(
                `${safeName}.svg`,
                new Blob([graphSvg(cyRef.current, model, exportTitle)], { type: "image/svg+xml" }),
              );
          }}
        >
          Export SVG
        </button>
        {networkExport && (
          <span class="network-export" role="group" aria-label="Export for Cytoscape">
            <span class="muted small">For Cytoscape:</span>
            {NETWORK_FORMATS.map((f) => (
              <button
                key={f.format}
                type="button"
                data-testid={`export-${f.format}`}
                disabled={exporting}
                title={`The graph as a ${f.label} network file, with each node's molecule and each edge's sign`}
                onClick={() => {
                  setExporting(true);
                  setExportError(null);
                  networkExport(f.format, model.selection.degsShown)
                    .then((text) => saveBlob(`${safeName}.${f.format}`, new Blob([text], { type: f.type })))
                    .catch((err: unknown) => setExportError(explain(err)))
                    .finally(() => setExporting(false));
                }}
              >
                {f.label}
              </button>
            ))}
          </span>
        )}
      </div>
      {exportError && (
        <p class="error" role="alert">
          {exportError}
        </p>
      )}
      <div class="graph-body">
        <div
          class="graph"
          ref={box}
          data-testid="causal-graph"
          data-target={inputs.target}
          role="img"
          aria-label={`${summary}. Its nodes are listed below the graph.`}
        />
        <aside class="graph-side" data-testid="graph-side" aria-label="The chosen node">
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
              <p>Click a node, or choose it in the list below the graph, to see the paths through it.</p>
              <p>
                <span class="swatch down" /> down ·
                <span class="swatch zero" /> 0 ·
                <span class="swatch up" /> up (log2 fold change, ±{num(model.colourLimit)}); grey = not
                measured
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
      <details class="key-details" data-testid="graph-node-list">
        <summary>
          The {model.nodes.length} nodes as a list{" "}
          <span class="muted small">(arrow keys move, Enter shows a node's paths)</span>
        </summary>
        <KeyList
          items={nodeItems}
          label={`Nodes of the causal graph of ${title}`}
          chosen={sel ? sel.id : null}
          onChoose={choose}
          onClear={() => choose(null)}
        />
      </details>
      <p class="sr-only" role="status">
        {sel
          ? `${sel.symbol}: ${paths.length} path${paths.length === 1 ? "" : "s"} through it, shown with the graph.`
          : ""}
      </p>
    </div>
  );
}
