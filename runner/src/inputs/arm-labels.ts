/**
 * Whether the files of a split upload are the arms they were uploaded as (model.md §3.3). A
 * split upload takes each arm from the file's role, not from its labels, so labels that say
 * otherwise are the only sign of a mix-up, and a mix-up flips or empties every fold change.
 * The labels are judged by the control-level names of the merged shape (`isControlLevel`).
 */
import { JobFailure } from "@causeway/contract";
import { isControlLevel } from "./columns.ts";
import { fileText, type FileLabel, type LoadedFile } from "./prepare-files.ts";

/** A split file's condition labels over its kept observations. */
export interface ArmLabels {
  file: FileLabel;
  /** The file's condition column, or null when it has none. */
  column: string | null;
  levels: string[];
}

const quoted = (levels: string[]): string => levels.map((l) => `"${l}"`).join(", ");

const sameValues = (a: ArrayLike<unknown>, b: ArrayLike<unknown>): boolean => {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
};

/** One file uploaded as both arms: the same observation names with the same counts. */
export function checkDistinctFiles(control: LoadedFile, perturbed: LoadedFile): void {
  const [a, b] = [control.choice.matrix, perturbed.choice.matrix];
  const same =
    a.nCols === b.nCols &&
    sameValues(control.ad.obs.index, perturbed.ad.obs.index) &&
    sameValues(a.indptr, b.indptr) &&
    sameValues(a.indices, b.indices) &&
    sameValues(a.data, b.data);
  if (same) {
    throw new JobFailure(
      "condition_control_ambiguous",
      `The control and perturbed files hold the same ${a.nRows.toLocaleString("en")} observations with the same counts: one file was uploaded as both arms. Upload the control observations as the control file and the perturbed observations as the perturbed file.`,
    );
  }
}

/** The arm a file's labels name: null unless the file has a single level. */
const armNamed = (labels: ArmLabels): FileLabel | null =>
  labels.levels.length === 1 ? (isControlLevel(labels.levels[0]!) ? "control" : "perturbed") : null;

const sameColumn = (a: string | null, b: string | null): boolean =>
  a !== null && b !== null && a.trim().toLowerCase() === b.trim().toLowerCase();

/**
 * Fails when the labels contradict the upload: both files hold a level of the same condition
 * column (a merged file as one arm, or one arm twice), or the control file's level is named
 * like a perturbation and the perturbed file's like a control (swapped files). Returns
 * `arm_labels_unclear:<file>` warnings for labels that only half fit: a file with several
 * levels, or one file named like the other arm.
 */
export function checkArmLabels(control: ArmLabels, perturbed: ArmLabels): string[] {
  const shared = sameColumn(control.column, perturbed.column)
    ? control.levels.filter((l) => perturbed.levels.includes(l))
    : [];
  if (shared.length > 0) {
    const merged = [control, perturbed].find((f) => f.levels.length > 1);
    throw new JobFailure(
      "condition_control_ambiguous",
      merged
        ? `The ${fileText(merged.file)} holds ${merged.levels.length} levels of the condition column "${merged.column}" (${quoted(merged.levels)}), and the other file holds ${quoted(shared)} as well: the ${fileText(merged.file)} looks like a merged dataset (both arms in one file). Upload it alone as a merged dataset, or upload only its ${merged.file} observations as the ${fileText(merged.file)}.`
        : `Both files are labelled ${quoted(shared)} in the condition column "${control.column}": one arm was uploaded twice, or the files are mislabelled. Upload the control observations as the control file and the perturbed observations as the perturbed file.`,
    );
  }
  if (armNamed(control) === "perturbed" && armNamed(perturbed) === "control") {
    const columns = sameColumn(control.column, perturbed.column)
      ? `the condition column "${control.column}"`
      : `the condition columns "${control.column}" and "${perturbed.column}"`;
    throw new JobFailure(
      "condition_control_ambiguous",
      `The control file is labelled "${control.levels[0]}" and the perturbed file "${perturbed.levels[0]}" in ${columns}: the files look swapped, which would flip the sign of every fold change. Upload the "${perturbed.levels[0]}" file as the control and the "${control.levels[0]}" file as the perturbed file.`,
    );
  }
  return [control, perturbed]
    .filter((f) => f.levels.length > 1 || (armNamed(f) !== null && armNamed(f) !== f.file))
    .map((f) => `arm_labels_unclear:${f.file}`);
}
