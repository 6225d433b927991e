/** The causal-graph image (model.md §11): replay inputs and the one rendering entry point. */
export {
  CausalGraphInputs,
  InvalidGraphInputs,
  parseCausalGraphInputs,
  parseCausalGraphInputsText,
  type EdgeSign,
  type EdgeType,
} from "./inputs.ts";
export { InvalidRenderOptions, RenderOptions, renderCausalGraph } from "./render.ts";
export { MAX_NODES } from "./select.ts";
