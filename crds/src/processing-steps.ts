/**
 * Worker-reported steps in the contract's order, with their progress (model.md §12.3), which
 * only increases. A step is reported once its work is done and never before an earlier step, so
 * two steps whose work ends together are reported together: the replicate check of §3.6 needs the
 * pseudo-bulk samples (inputs_validated with pseudobulk_built), and a runner has its model version
 * in memory before it reads the inputs, whose genes it checks against the version's symbols, so
 * model_loaded, true from the start, is reported at its place in this order.
 */
export const PROCESSING_STEPS = {
  inputs_downloaded: 5,
  inputs_validated: 10,
  pseudobulk_built: 20,
  de_completed: 35,
  degs_mapped: 40,
  model_loaded: 45,
  scores_computed: 70,
  randomizations_completed: 85,
  causal_completed: 90,
  graph_rendered: 95,
  results_uploaded: 100,
} as const;

export type ProcessingStep = keyof typeof PROCESSING_STEPS;
export const PROCESSING_STEP_NAMES = Object.keys(PROCESSING_STEPS) as [ProcessingStep, ...ProcessingStep[]];
