/** Gene-set libraries as evidence layers of a model version (model v3). */
export {
  parseGmt,
  setsAsSymbols,
  GmtFormatError,
  LayerKind,
  LAYER_KINDS,
  GENE_SET_KINDS,
  type EvidenceLayer,
  type GeneSetKind,
} from "./gmt.ts";
export { pairsLayerName, parsePairs } from "./pairs.ts";
export { parseLayer } from "./parse-layer.ts";
export { layerFilesOfDir, layerKindOf, loadLayersFromDir, type LayerFile } from "./layer-dir.ts";
export {
  decodeResolvedLayers,
  encodeResolvedLayers,
  RESOLVED_LAYERS_FILE,
  ResolvedLayersError,
} from "./resolved-layers.ts";
