/**
 * The causal-path parameters (top_n_causal_degs, min_path_fraction, min_path_probability,
 * max_path_length, min_degs_fold_uniform): accepted by `submit` for a target_validation job and
 * by `analyses create`, with the same flags, help and field names in both.
 */
import type { Command } from "commander";
import { integer, number } from "./cli-support.ts";

export interface CausalPathOptions {
  topNCausalDegs?: number;
  minPathFraction?: number;
  minPathProbability?: number;
  maxPathLength?: number;
  minDegsFoldUniform?: number;
}

/** Adds the causal-path flags to a command. */
export function withCausalPathOptions(command: Command): Command {
  return command
    .option("--top-n-causal-degs <n>", "default 1000", integer)
    .option("--min-path-fraction <n>", "default 0.1", number)
    .option("--min-path-probability <n>", "default 0.0001", number)
    .option(
      "--max-path-length <n>",
      "longest path in nodes (2 = one edge), 1 or more; default: the model's",
      integer,
    )
    .option("--min-degs-fold-uniform <n>", "optional", number);
}

/** The request fields of the flags given (undefined ones are left to the service's defaults). */
export function causalPathFields(o: CausalPathOptions) {
  return {
    top_n_causal_degs: o.topNCausalDegs,
    min_path_fraction: o.minPathFraction,
    min_path_probability: o.minPathProbability,
    max_path_length: o.maxPathLength,
    min_degs_fold_uniform: o.minDegsFoldUniform,
  };
}
