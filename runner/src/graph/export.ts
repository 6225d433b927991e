/**
 * The causal graph as files network tools open (Cytoscape, NDEx, CausalPath, igraph): CX2,
 * GraphML and SIF, built from the same selection the PNG draws (select.ts), so a file holds
 * every node and edge of the image, with each node's molecule (protein or RNA), role and log2FC
 * and each edge's sign, layer and summed path score as attributes.
 *
 * Hand-written: each format is a few lines of JSON or text, and no npm writer covers CX2 (the
 * GraphML writers come with a whole graph library); the tests read every file back with a real
 * parser.
 */
import { parseEntityId } from "@causeway/contract";
import { parseCausalGraphInputs, type CausalGraphInputs } from "./inputs.ts";
import { MAX_NODES, selectGraph, type GraphEdge, type GraphNode, type GraphSelection } from "./select.ts";

export const GRAPH_EXPORT_FORMATS = ["cx2", "graphml", "sif"] as const;

/** DEGs in a standalone causal analysis's own image, `min(20, |D_t|)` (model.md §10.8). */
export const ANALYSIS_GRAPH_DEGS = 20;
export type GraphExportFormat = (typeof GRAPH_EXPORT_FORMATS)[number];

/** Media type and file extension of each format. */
export const GRAPH_EXPORT_MEDIA: Record<GraphExportFormat, { contentType: string; extension: string }> = {
  cx2: { contentType: "application/json", extension: "cx2" },
  graphml: { contentType: "application/graphml+xml", extension: "graphml" },
  sif: { contentType: "text/plain; charset=utf-8", extension: "sif" },
};

/** A node as exported: the drawn node with its molecule type. */
export interface ExportNode extends GraphNode {
  molecule: "protein" | "RNA";
}

/** An edge as exported: the drawn edge with its interaction word (SIF, Cytoscape's `interaction`). */
export interface ExportEdge extends GraphEdge {
  interaction: string;
}

/** What every format writes: the drawn nodes and edges and a few facts about the graph. */
export interface ExportGraph {
  name: string;
  description: string;
  target: string;
  modelVersion: string;
  topN: number;
  options: CausalGraphInputs["options"];
  nodes: ExportNode[];
  edges: ExportEdge[];
}

/**
 * CausalPath's relation words (its SIF vocabulary) for the two layers: signaling edges act on a
 * protein, transcriptional ones on a gene's expression.
 */
function interactionOf(edge: GraphEdge): string {
  if (edge.type === "transcriptional")
    return edge.sign > 0
      ? "upregulates-expression"
      : edge.sign < 0
        ? "downregulates-expression"
        : "regulates-expression";
  return edge.sign > 0 ? "activates" : edge.sign < 0 ? "inhibits" : "interacts-with";
}

/** The drawn graph of the first `topNDegs` impacted DEGs, ready for any format. */
export function exportGraph(inputs: CausalGraphInputs, topNDegs: number): ExportGraph {
  const s: GraphSelection = selectGraph(inputs, topNDegs);
  const name = `Causal paths from ${s.target.symbol} to the top ${s.topN} impacted DEGs`;
  return {
    name,
    description:
      `${s.pathsShown} paths and ${s.degsShown} DEGs shown` +
      (s.degsWithoutPath > 0 ? `; ${s.degsWithoutPath} of the top ${s.topN} DEGs have no kept path` : "") +
      (s.pathsOmitted > 0 ? `; ${s.pathsOmitted} paths left out by the ${MAX_NODES}-node cap` : "") +
      `. Model ${inputs.model_version}; min_path_probability ${inputs.options.min_path_probability}, ` +
      `min_path_fraction ${inputs.options.min_path_fraction}, max_path_length ${inputs.options.max_path_length}.`,
    target: inputs.target,
    modelVersion: inputs.model_version,
    topN: s.topN,
    options: inputs.options,
    nodes: s.nodes.map((n) => ({ ...n, molecule: parseEntityId(n.id)?.type === "RNA" ? "RNA" : "protein" })),
    edges: s.edges.map((e) => ({ ...e, interaction: interactionOf(e) })),
  };
}

/**
 * Parses stored `causal_graph_inputs.json` and writes its graph of the first `topNDegs` DEGs.
 * @throws InvalidGraphInputs when the inputs are invalid (the API answers 422, as for the PNG)
 */
export function exportCausalGraph(
  inputsJson: unknown,
  o: { topNDegs: number; format: GraphExportFormat },
): { body: string; contentType: string; extension: string } {
  const body = serializeGraph(exportGraph(parseCausalGraphInputs(inputsJson), o.topNDegs), o.format);
  return { body, ...GRAPH_EXPORT_MEDIA[o.format] };
}

/** Writes the graph in `format`. */
export function serializeGraph(g: ExportGraph, format: GraphExportFormat): string {
  switch (format) {
    case "cx2":
      return JSON.stringify(toCx2(g));
    case "graphml":
      return toGraphml(g);
    case "sif":
      return toSif(g);
  }
}

/** Node attributes in every format: name → value (null: absent). */
function nodeAttributes(n: ExportNode): Record<string, string | number | null> {
  return { name: n.symbol, entity_id: n.id, molecule: n.molecule, role: n.kind, log2fc: n.log2fc };
}

function edgeAttributes(e: ExportEdge): Record<string, string | number> {
  return { interaction: e.interaction, sign: e.sign, layer: e.type, score: e.score };
}

const NODE_TYPES = {
  name: "string",
  entity_id: "string",
  molecule: "string",
  role: "string",
  log2fc: "double",
};
const EDGE_TYPES = { interaction: "string", sign: "integer", layer: "string", score: "double" };

/** CX2 element types of the attribute declarations. */
type Cx2Type = "string" | "integer" | "double" | "long" | "boolean";

/**
 * CX2 (Cytoscape Exchange 2.0, as NDEx and Cytoscape 3.10 read it): a JSON array of aspects, the
 * descriptor first and the status last; nodes and edges carry integer ids and their attributes
 * under `v`, declared with their types in `attributeDeclarations`.
 */
export function toCx2(g: ExportGraph): unknown[] {
  const ids = new Map(g.nodes.map((n, i) => [n.id, i]));
  const declare = (types: Record<string, string>): Record<string, { d: Cx2Type }> =>
    Object.fromEntries(Object.entries(types).map(([k, d]) => [k, { d: d as Cx2Type }]));
  const nodes = g.nodes.map((n, i) => ({ id: i, v: withoutNulls(nodeAttributes(n)) }));
  const edges = g.edges.map((e, i) => ({
    id: i,
    s: ids.get(e.source)!,
    t: ids.get(e.target)!,
    v: edgeAttributes(e),
  }));
  const network = networkAttributes(g);
  return [
    { CXVersion: "2.0", hasFragments: false },
    {
      metaData: [
        { name: "attributeDeclarations", elementCount: 1 },
        { name: "networkAttributes", elementCount: 1 },
        { name: "nodes", elementCount: nodes.length },
        { name: "edges", elementCount: edges.length },
      ],
    },
    {
      attributeDeclarations: [
        {
          networkAttributes: declare(
            Object.fromEntries(
              Object.entries(network).map(([k, v]) => [
                k,
                typeof v === "number" ? (Number.isInteger(v) ? "integer" : "double") : "string",
              ]),
            ),
          ),
          nodes: declare(NODE_TYPES),
          edges: declare(EDGE_TYPES),
        },
      ],
    },
    { networkAttributes: [network] },
    { nodes },
    { edges },
    { status: [{ error: "", success: true }] },
  ];
}

function networkAttributes(g: ExportGraph): Record<string, string | number> {
  return {
    name: g.name,
    description: g.description,
    target: g.target,
    model_version: g.modelVersion,
    top_n_degs: g.topN,
    min_path_probability: g.options.min_path_probability,
    min_path_fraction: g.options.min_path_fraction,
    max_path_length: g.options.max_path_length,
  };
}

function withoutNulls<T>(o: Record<string, T | null>): Record<string, T> {
  return Object.fromEntries(Object.entries(o).filter((e): e is [string, T] => e[1] !== null));
}

const XML_ESCAPES: Record<string, string> = {
  "&": "&amp;",
  "<": "&lt;",
  ">": "&gt;",
  '"': "&quot;",
  "'": "&apos;",
};
const xml = (s: string | number): string => String(s).replace(/[&<>"']/g, (c) => XML_ESCAPES[c]!);

/** GraphML 1.0 (graphml.graphdrawing.org), typed `key`s named as Cytoscape's reader maps them to columns. */
export function toGraphml(g: ExportGraph): string {
  const graphTypes = { name: "string", description: "string", target: "string", model_version: "string" };
  const keys = [
    ...Object.entries(graphTypes).map(([k, t]) => ["graph", k, t] as const),
    ...Object.entries(NODE_TYPES).map(([k, t]) => ["node", k, t] as const),
    ...Object.entries(EDGE_TYPES).map(([k, t]) => ["edge", k, t === "integer" ? "int" : t] as const),
  ];
  const data = (domain: string, attrs: Record<string, string | number | null>, indent: string): string[] =>
    Object.entries(attrs)
      .filter(([, v]) => v !== null)
      .map(([k, v]) => `${indent}<data key="${domain}_${k}">${xml(v!)}</data>`);
  return [
    '<?xml version="1.0" encoding="UTF-8"?>',
    '<graphml xmlns="http://graphml.graphdrawing.org/xmlns" xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance"',
    '    xsi:schemaLocation="http://graphml.graphdrawing.org/xmlns http://graphml.graphdrawing.org/xmlns/1.0/graphml.xsd">',
    ...keys.map(
      ([domain, k, t]) => `  <key id="${domain}_${k}" for="${domain}" attr.name="${k}" attr.type="${t}"/>`,
    ),
    '  <graph id="causal_graph" edgedefault="directed">',
    ...data(
      "graph",
      { name: g.name, description: g.description, target: g.target, model_version: g.modelVersion },
      "    ",
    ),
    ...g.nodes.flatMap((n) => [
      `    <node id="${xml(n.id)}">`,
      ...data("node", nodeAttributes(n), "      "),
      "    </node>",
    ]),
    ...g.edges.flatMap((e, i) => [
      `    <edge id="e${i}" source="${xml(e.source)}" target="${xml(e.target)}">`,
      ...data("edge", edgeAttributes(e), "      "),
      "    </edge>",
    ]),
    "  </graph>",
    "</graphml>",
    "",
  ].join("\n");
}

/**
 * SIF (Cytoscape's simple interaction format, as CausalPath writes it): `source<TAB>relation<TAB>target`
 * per edge, entity ids as node names so a protein and its RNA stay two nodes; a node without an
 * edge (a target with no kept path) stands alone on its line.
 */
export function toSif(g: ExportGraph): string {
  const linked = new Set(g.edges.flatMap((e) => [e.source, e.target]));
  return [
    ...g.edges.map((e) => `${e.source}\t${e.interaction}\t${e.target}`),
    ...g.nodes.filter((n) => !linked.has(n.id)).map((n) => n.id),
    "",
  ].join("\n");
}
