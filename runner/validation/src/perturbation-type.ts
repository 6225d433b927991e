/**
 * The `perturbation_type` a submitter who knows their experiment would give (model v4's optional
 * input), read from a known-answer case's `direction` (case.json / cases.tsv). Validate passes it
 * to v4 as a job would receive it; an experiment described by no type (an active mutant, a "drug
 * activation" that may be either) is `unknown`.
 */
import type { PerturbationType } from "@causeway/runner/scoring";

const BY_DIRECTION: Record<string, PerturbationType> = {
  stimulation: "ligand",
  inhibitor: "drug",
  knockout: "knockout",
  loss_of_function: "knockout",
  knockdown: "knockdown",
  inactivation: "knockdown",
  degradation: "knockdown",
  overexpression: "overexpression",
  gain_of_function: "overexpression",
};

export function perturbationTypeOf(direction: string | null | undefined): PerturbationType {
  return (direction && BY_DIRECTION[direction]) || "unknown";
}
