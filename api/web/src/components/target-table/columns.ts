/** The target table's columns: which show by default, what each means, how a cell reads. */
import { TARGET_COLUMNS } from "@causeway/api/schemas/field-docs.ts";

/** Shown when the table has them, in this order; the rest are one click away ("Columns"). */
export const DEFAULT_COLUMNS = [
  "id",
  "probability",
  "score",
  "rank",
  "pvalue",
  "qvalue",
  "z_score",
  "n_degs_significant",
  "percentage_degs_significant",
  "is_deg",
  "gene_measured",
  "protein_expressed",
  "activation_z",
  "activation_state",
];

export const docOf = (c: string): { summary: string; detail?: string } | undefined =>
  (TARGET_COLUMNS as Record<string, { summary: string; detail?: string }>)[c];

export const columnTitle = (c: string): string =>
  c === "id" ? "candidate" : c === "in_prediction_set" ? "in 90 % set" : c.replaceAll("_", " ");

/**
 * The value a cell shows. Ranks are counted from 1 on screen, as people count them; the file and
 * the API keep theirs from 0.
 */
export function shownValue(column: string, value: unknown): unknown {
  if (column === "rank" && typeof value === "number") return value + 1;
  return value;
}

/** Ranks and p-values read best-first ascending; scores and probabilities descending. */
export const ascendingFirst = (c: string): boolean => /^(rank|pvalue|qvalue|id)/.test(c);
