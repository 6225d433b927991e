/** Worker-reported steps in the order they happen, with their progress (model.md §12.3). */
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
