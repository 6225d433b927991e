/**
 * What a failed column detection tells the user: the obs columns that could play the missing
 * role, with their levels, and which form field to set (model.md §3.3). Real files are not
 * renamed to suit a tool; the message makes the fix one field away.
 */
import type { DataFrame } from "../anndata/index.ts";
import { columnValues, isControlLevel, levelsOf } from "./columns.ts";
import { SUBSAMPLED_COLUMN } from "./dataset-files.ts";

/** One obs column as a role candidate. */
export interface ColumnCensus {
  name: string;
  levels: string[];
  /** Distinct values per condition level, when the condition is known. */
  perArm: Map<string, number> | null;
}

/** Columns with a manageable number of levels (ids and continuous values say nothing about roles). */
export function censusOf(
  frame: DataFrame,
  condition: (string | null)[] | null,
  conditionName: string | null,
): ColumnCensus[] {
  const out: ColumnCensus[] = [];
  const nObs = frame.index.length;
  for (const name of frame.columns.keys()) {
    if (name === conditionName || name === SUBSAMPLED_COLUMN) continue;
    const values = columnValues(frame, name);
    const levels = levelsOf(values);
    if (levels.length < 2 || levels.length > Math.max(2, Math.min(200, nObs / 2))) continue;
    let perArm: Map<string, number> | null = null;
    if (condition) {
      const sets = new Map<string, Set<string>>();
      values.forEach((v, i) => {
        const arm = condition[i];
        if (v === null || arm === null || arm === undefined) return;
        let s = sets.get(arm);
        if (!s) sets.set(arm, (s = new Set()));
        s.add(v);
      });
      perArm = new Map([...sets].map(([arm, s]) => [arm, s.size]));
    }
    out.push({ name, levels, perArm });
  }
  return out;
}

const listLevels = (levels: string[], max = 6): string =>
  levels
    .slice(0, max)
    .map((l) => JSON.stringify(l))
    .join(", ") + (levels.length > max ? `, … (${levels.length} in all)` : "");

/** "`arm` has 2 values ("IFNb", "unstim")" */
export function describeColumn(c: ColumnCensus): string {
  return `\`${c.name}\` has ${c.levels.length} values (${listLevels(c.levels)})`;
}

/**
 * Candidates for the condition column: few levels, one of them named like a control; only
 * columns of `nLevels` levels when given (a contrast needs two arms).
 */
export function conditionHints(frame: DataFrame, nLevels: number | null = null): string[] {
  const census = censusOf(frame, null, null).filter((c) => nLevels === null || c.levels.length === nLevels);
  // Columns with a control-like level are the likely ones; the others are listed after them.
  const likely = census.filter((c) => c.levels.length <= 12 && c.levels.some(isControlLevel)).slice(0, 4);
  const hints = likely.map((c) => {
    const controls = c.levels.filter(isControlLevel);
    const fix =
      controls.length === 1
        ? `set condition_column=${c.name}`
        : `set condition_column=${c.name} and control_level=<one of its values>`;
    return `${describeColumn(c)}: ${fix}`;
  });
  const others = census.filter((c) => !likely.includes(c)).slice(0, 8);
  if (others.length > 0)
    hints.push(
      `${likely.length > 0 ? "other columns" : "columns"}: ${others.map((c) => `\`${c.name}\` (${c.levels.length} values)`).join(", ")}` +
        (likely.length > 0 ? "" : "; set condition_column and control_level"),
    );
  return hints;
}

/**
 * Candidates for the sample column: at least two values within each arm of `condition` (one
 * arm for a file of a split pair).
 */
export function sampleHints(
  frame: DataFrame,
  condition: (string | null)[],
  conditionName: string | null,
): string[] {
  const nArms = levelsOf(condition).length;
  return censusOf(frame, condition, conditionName)
    .filter(
      (c) => c.perArm !== null && c.perArm.size === nArms && [...c.perArm.values()].every((n) => n >= 2),
    )
    .sort((a, b) => a.levels.length - b.levels.length)
    .slice(0, 4)
    .map((c) => {
      const per = [...new Set(c.perArm!.values())];
      const perText = per.length === 1 ? `${per[0]} per arm` : `${[...c.perArm!.values()].join("/")} per arm`;
      return `\`${c.name}\` has ${c.levels.length} values, ${perText}: set sample_column=${c.name}`;
    });
}

/**
 * Candidates for the sample column of bulk data: a value on every observation and none twice
 * within an arm. Fractional numbers are measurements, not ids.
 */
export function sampleIdHints(
  frame: DataFrame,
  armOf: (i: number) => string,
  obs: number[],
  exclude: (string | null)[],
): string[] {
  const hints: string[] = [];
  for (const name of frame.columns.keys()) {
    if (exclude.includes(name) || name === SUBSAMPLED_COLUMN) continue;
    const values = columnValues(frame, name);
    const ids = obs.map((i) => values[i] ?? null);
    if (ids.some((v) => v === null || (Number.isFinite(Number(v)) && !Number.isInteger(Number(v))))) continue;
    if (new Set(obs.map((i, k) => `${armOf(i)}\u0000${ids[k]}`)).size === obs.length)
      hints.push(`\`${name}\` has one value per observation: set sample_column=${name}`);
  }
  return hints.slice(0, 4);
}

/** Candidates for the cell-type column: several non-numeric levels. */
export function cellTypeHints(frame: DataFrame, exclude: (string | null)[]): string[] {
  return censusOf(frame, null, null)
    .filter(
      (c) =>
        !exclude.includes(c.name) && c.levels.some((l) => Number.isNaN(Number(l))) && c.levels.length <= 60,
    )
    .slice(0, 4)
    .map((c) => `${describeColumn(c)}: set cell_type_column=${c.name} and cell_type=<one of its values>`);
}

/** "Candidates in obs: …; …." or a list of the columns when none fits. */
export function hintText(hints: string[], frame: DataFrame): string {
  if (hints.length > 0) return ` Candidates in obs: ${hints.join("; ")}.`;
  const names = [...frame.columns.keys()];
  return names.length === 0
    ? " obs has no columns."
    : ` obs columns: ${names.map((n) => `\`${n}\``).join(", ")}.`;
}
