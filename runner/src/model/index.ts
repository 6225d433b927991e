/** The interactome model (model.md §6, §12.1, §15.2). */
export { Model, type ModelParts } from "./model.ts";
export { ModelManifest, BUNDLE_FORMAT, DEFAULT_MAX_PATH_LENGTH, SCORING_VERSIONS } from "./manifest.ts";
export {
  importModel,
  buildModel,
  type BuildModelOptions,
  type ImportModelOptions,
  type LayerInput,
} from "./model-import.ts";
export { loadModel, type LoadModelOptions } from "./model-load.ts";
export { ModelVersionConflict, ModelIntegrityError, MANIFEST_FILE } from "./model-files.ts";
export {
  buildModelFromFiles,
  bundleCacheKey,
  defaultCacheDir,
  type BuildModelFromFilesOptions,
} from "./build-from-files.ts";
export {
  parseNetwork,
  NetworkFormatError,
  compareIds,
  type Network,
  type NetworkEdge,
  type EdgeType,
  type WeightRule,
} from "./network.ts";
export {
  buildTransitionGraph,
  walkMatrices,
  V1_WALK,
  EDGE_TYPE_NAME,
  type Csr,
  type TransitionGraph,
  type WalkParams,
} from "./transition.ts";
export {
  computeInfluence,
  influenceRow,
  baselineOf,
  type InfluenceResult,
  type ProgressCallback,
} from "./influence.ts";
export { iterationCount, TOLERANCE, ZERO_BELOW } from "./influence-kernel.ts";
export { loadGeneLookup, loadOrthologues } from "./gene-lookup-store.ts";
