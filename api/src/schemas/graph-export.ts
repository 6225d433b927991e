/**
 * The causal graph as a network file (Cytoscape, NDEx, CausalPath): the query and the response
 * of the two export routes. The formats are the runner's (graph/export.ts).
 */
import { z } from "zod";
import { GRAPH_EXPORT_FORMATS } from "@causeway/runner/graph/export";

const format = z.enum(GRAPH_EXPORT_FORMATS).default("cx2").meta({
  description:
    "cx2 (Cytoscape Exchange 2, for Cytoscape 3.10+ and NDEx), graphml (GraphML, for Cytoscape, Gephi, igraph, networkx) or sif (tab-separated source, relation, target, as CausalPath writes it). Default cx2.",
});

/** GET /v1/predictions/{id}/causal-graph/export: the PNG's DEG count, a format instead of a dpi. */
export const PredictionGraphExportQuery = z.object({
  top_n_degs: z.coerce
    .number()
    .int()
    .min(1)
    .max(10000)
    .meta({ description: "How many of the impacted DEGs, best first, to use (as for the PNG)." }),
  format,
});

/** GET /v1/causal-analysis/{id}/graph/export: the analysis's own PNG options are fixed. */
export const AnalysisGraphExportQuery = z.object({ format });

export const GraphExportResponse = {
  description:
    "The nodes and edges the PNG draws, as a network file. Nodes: name (gene symbol), entity_id (SYMBOL|PROTEIN or SYMBOL|RNA), molecule (protein or RNA), role (target, intermediary or deg), log2fc (absent when not measured). Edges: interaction (activates, inhibits, interacts-with; upregulates-, downregulates- or regulates-expression), sign (1, -1, 0), layer (signaling or transcriptional), score (summed score_path_given_target of the drawn paths). Sent as an attachment named causal_graph_<target>.<format>.",
  content: {
    "application/json": { schema: z.array(z.record(z.string(), z.unknown())).meta({ description: "CX2" }) },
    "application/graphml+xml": { schema: z.string().meta({ description: "GraphML" }) },
    "text/plain": { schema: z.string().meta({ description: "SIF" }) },
  },
};
