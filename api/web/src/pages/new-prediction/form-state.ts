/** The new-prediction form's state, and the submission it stands for. */
import type { PredictionSubmission } from "../../client.ts";
import type { ColumnValues } from "./DatasetColumns.tsx";
import { emptyDegs, genesOf, type DegsState } from "./DegsField.tsx";
import { targetId } from "./gene-list.ts";

export interface FormState {
  shape: "split" | "merged";
  control: File | null;
  perturbed: File | null;
  merged: File | null;
  degs: DegsState;
  columns: ColumnValues;
  species: "human" | "mouse";
  perturbationType: string;
  jobType: "target_id" | "target_validation";
  target: string;
  label: string;
  prefix: string;
  modelVersion: string;
  params: Record<string, string>;
}

export const emptyForm: FormState = {
  shape: "split",
  control: null,
  perturbed: null,
  merged: null,
  degs: emptyDegs,
  columns: {},
  species: "human",
  perturbationType: "",
  jobType: "target_id",
  target: "",
  label: "",
  prefix: "",
  modelVersion: "",
  params: {},
};

/** Field names of the service that a failure message asks to set ("set condition_column=arm"). */
export function fieldsAskedFor(message: string): Record<string, string> {
  const out: Record<string, string> = {};
  for (const m of message.matchAll(/\b([a-z_]+)=("[^"]+"|'[^']+'|[^\s,;)]+)/g))
    out[m[1]!] = m[2]!.replace(/^["']|["']$/g, "").replace(/\.$/, "");
  return out;
}

export function submissionOf(s: FormState, perturbationTypeTaken: boolean): PredictionSubmission {
  const options: Record<string, string | number> = { job_type: s.jobType, species: s.species };
  if (s.jobType === "target_validation") options.target = targetId(s.target);
  if (s.label.trim()) options.label = s.label.trim();
  if (s.prefix.trim()) options.prefix = s.prefix.trim();
  if (s.modelVersion.trim()) options.model_version = s.modelVersion.trim();
  if (perturbationTypeTaken && s.perturbationType) options.perturbation_type = s.perturbationType;
  for (const [k, v] of Object.entries(s.params)) if (v.trim() !== "") options[k] = Number(v);
  if (s.shape === "merged") {
    for (const [k, v] of Object.entries(s.columns)) if (v && v.trim() !== "") options[k] = v.trim();
    return { ...options, dataset: s.merged! } as PredictionSubmission;
  }
  if (s.columns.control_level?.trim()) options.control_level = s.columns.control_level.trim();
  return {
    ...options,
    dataset_control: s.control!,
    dataset_pert: s.perturbed!,
    degs: genesOf(s.degs),
  } as PredictionSubmission;
}
