/**
 * Finding the obs columns by role and the control level (model.md §3.3).
 */
import { JobFailure } from "@causeway/contract";
import { columnAsStrings, type DataFrame } from "../anndata/index.ts";

/** Accepted column names per role, in priority order. */
export const COLUMN_NAMES = {
  condition: ["condition", "perturbation", "treatment", "group", "stim", "status", "genotype"],
  sample: ["sample", "sample_id", "samples", "replicate", "orig.ident", "library_id"],
  donor: ["donor", "donor_id", "individual", "patient", "subject", "animal"],
  cellType: ["cell_type", "celltype", "cell_type_label", "cell_types", "annotation", "cell_ontology_class"],
  disease: ["disease"],
} as const;

export type ColumnRole = keyof typeof COLUMN_NAMES;

const CONTROL_RE =
  /^(ctrl|control|untreated|vehicle|dmso|mock|nt|non[-_ ]?targeting|wt|wild[-_ ]?type|healthy|normal|baseline|unstim(ulated)?|pbs|sham)$/i;

/** The file's name of the first accepted column for `role` (case-insensitive, trimmed), or null. */
export function findColumn(frame: DataFrame, role: ColumnRole): string | null {
  const byKey = new Map<string, string>();
  for (const name of frame.columns.keys()) {
    const key = name.trim().toLowerCase();
    if (!byKey.has(key)) byKey.set(key, name);
  }
  for (const wanted of COLUMN_NAMES[role]) {
    const hit = byKey.get(wanted);
    if (hit !== undefined) return hit;
  }
  return null;
}

const ROLE_FAILURE = {
  condition: "missing_condition_column",
  sample: "missing_sample_column",
  donor: "missing_sample_column",
  cellType: "missing_cell_type_column",
  disease: "missing_condition_column",
} as const satisfies Record<ColumnRole, string>;

/**
 * The column of a role: the one the submitter named (form field `field`), matched exactly or
 * else case-insensitively, or the detected one. A named column that obs lacks is a failure
 * that lists obs's columns.
 */
export function chooseColumn(
  frame: DataFrame,
  role: ColumnRole,
  given: string | null | undefined,
  field: string,
): string | null {
  if (given === null || given === undefined) return findColumn(frame, role);
  if (frame.columns.has(given)) return given;
  const key = given.trim().toLowerCase();
  for (const name of frame.columns.keys()) if (name.trim().toLowerCase() === key) return name;
  const names = [...frame.columns.keys()].map((n) => `\`${n}\``);
  throw new JobFailure(
    ROLE_FAILURE[role],
    `${field}=${given}, but obs has no column "${given}"; its columns: ${names.length > 0 ? names.join(", ") : "none"}.`,
  );
}

/**
 * The donor column: the named one, or the detected one unless it is the sample column itself.
 * Donor names (`individual`, `patient`) are also what people call their sample column; taken
 * as donor too, a column whose ids differ between arms made every job warn `donor_not_paired`.
 * Without a donor column the design still pairs on sample ids present in both arms (model.md §3.3).
 */
export function chooseDonorColumn(
  frame: DataFrame,
  given: string | null | undefined,
  sampleColumn: string | null,
): string | null {
  const donor = chooseColumn(frame, "donor", given, "donor_column");
  return (given === null || given === undefined) && donor !== null && donor === sampleColumn ? null : donor;
}

/** Column values as trimmed strings; missing and empty values are null. */
export function columnValues(frame: DataFrame, name: string): (string | null)[] {
  return columnAsStrings(frame.columns.get(name)!).map((v) => {
    const t = v?.trim() ?? "";
    return t === "" || t.toLowerCase() === "nan" ? null : t;
  });
}

/** Whether a condition level names the control arm. */
export function isControlLevel(level: string): boolean {
  return CONTROL_RE.test(level.trim()) || /control/i.test(level);
}

/** Distinct non-null values in byte order. */
export function levelsOf(values: (string | null)[]): string[] {
  return [...new Set(values.filter((v): v is string => v !== null))].sort();
}

/**
 * The control level and the perturbation levels of a merged upload's condition column;
 * `condition_control_ambiguous` unless exactly one level is a control and at least one is not.
 * A column of one level does not tell the arms apart whatever its name, so its message points
 * to other columns (`otherColumns`, hints the caller computes only then) rather than to a level.
 */
export function splitConditionLevels(
  column: string,
  levels: string[],
  controlLevel: string | null = null,
  otherColumns: () => string = () => "",
): { control: string; perturbations: string[] } {
  const listed = levels.map((l) => `"${l}"`).join(", ");
  if (controlLevel !== null && !levels.includes(controlLevel)) {
    throw new JobFailure(
      "condition_control_ambiguous",
      `control_level=${controlLevel}, but the condition column "${column}" has no such level (levels: ${listed}).`,
    );
  }
  if (levels.length === 1) {
    throw new JobFailure(
      "condition_control_ambiguous",
      `The condition column "${column}" has one level only (${listed}), so it does not tell control from perturbed observations. Set condition_column to the column that does (its control level named like one, or set control_level too); a file that holds one arm only is one file of a split pair.` +
        otherColumns(),
    );
  }
  const controls = controlLevel !== null ? [controlLevel] : levels.filter(isControlLevel);
  if (controls.length !== 1) {
    throw new JobFailure(
      "condition_control_ambiguous",
      controls.length === 0
        ? `No level of the condition column "${column}" names a control (levels: ${listed}). Set control_level to the control's level (e.g. control_level=${levels[0] ?? "ctrl"}).`
        : `Several levels of the condition column "${column}" look like controls (${controls.map((l) => `"${l}"`).join(", ")}). Set control_level to the one that is the control.`,
    );
  }
  return { control: controls[0]!, perturbations: levels.filter((l) => l !== controls[0]) };
}
