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

/**
 * Field names of the service that a failure message asks to set ("set condition_column=arm",
 * "for example cell_type=\"B cells\""). A value is read quoted (double quotes, JSON escapes, or
 * single quotes) or bare; a bare value may hold spaces ("cell_type=B cells)", as the runner wrote
 * it before quoting) and ends at a comma, semicolon, closing parenthesis, line end, the next
 * `name=`, or a joining word (" or ", " and ", " but "); a sentence's final full stop is not
 * part of it.
 */
export function fieldsAskedFor(message: string): Record<string, string> {
  const out: Record<string, string> = {};
  const re =
    /\b([a-z_]+)=(?:"((?:[^"\\]|\\.)*)"|'([^']*)'|((?:(?![,;)\n]|\s+(?:or|and|but)\s|\s+[a-z_]+=)[^\n])+))/g;
  for (const m of message.matchAll(re)) {
    let value: string;
    if (m[2] !== undefined) {
      try {
        value = JSON.parse(`"${m[2]}"`) as string;
      } catch {
        value = m[2];
      }
    } else if (m[3] !== undefined) value = m[3];
    else value = m[4]!.trim().replace(/\.$/, "");
    if (value !== "") out[m[1]!] = value;
  }
  return out;
}

/**
 * The choice of cell type a merged file needs, from the levels of its cell-type column read in
 * the page: "choose" when it holds several and none is chosen (the service would fail with
 * multiple_cell_types), "unknown" when the chosen one is none of the file's levels (it would
 * fail with missing_cell_type_column), "ok" otherwise.
 */
export function cellTypeChoice(
  levels: readonly string[],
  chosen: string | undefined,
): "ok" | "choose" | "unknown" {
  const c = chosen?.trim() ?? "";
  if (c === "") return levels.length > 1 ? "choose" : "ok";
  return levels.length > 0 && !levels.includes(c) ? "unknown" : "ok";
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
