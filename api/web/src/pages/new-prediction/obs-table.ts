/**
 * An .h5ad's obs as the form needs it: each column as levels and one code per observation, the
 * roles found by name as the runner finds them (model.md §3.3), and the counts a person checks
 * before uploading (observations per arm, samples per arm, cell types per arm).
 */

export interface ObsColumn {
  name: string;
  levels: string[];
  /** Level index of each observation; -1 for a missing value. */
  codes: number[];
}

export interface ObsTable {
  nObs: number;
  columns: ObsColumn[];
}

/** The runner's accepted names per role, in priority order (runner/src/inputs/columns.ts). */
export const ROLE_NAMES = {
  condition: ["condition", "perturbation", "treatment", "group", "stim", "status", "genotype"],
  sample: ["sample", "sample_id", "samples", "replicate", "orig.ident", "library_id"],
  donor: ["donor", "donor_id", "individual", "patient", "subject", "animal"],
  cellType: ["cell_type", "celltype", "cell_type_label", "cell_types", "annotation", "cell_ontology_class"],
} as const;

export type Role = keyof typeof ROLE_NAMES;

const CONTROL_RE =
  /^(ctrl|control|untreated|vehicle|dmso|mock|nt|non[-_ ]?targeting|wt|wild[-_ ]?type|healthy|normal|baseline|unstim(ulated)?|pbs|sham)$/i;

/** The column the service would take for `role` when none is named, or null. */
export function detectColumn(table: ObsTable, role: Role): string | null {
  const byKey = new Map(table.columns.map((c) => [c.name.trim().toLowerCase(), c.name]));
  for (const wanted of ROLE_NAMES[role]) {
    const hit = byKey.get(wanted);
    if (hit !== undefined) return hit;
  }
  return null;
}

/** The control level the service would take when none is named, or null. */
export const detectControl = (levels: string[]): string | null =>
  levels.find((l) => CONTROL_RE.test(l)) ?? null;

export const columnNamed = (table: ObsTable, name: string | null): ObsColumn | null =>
  name === null ? null : (table.columns.find((c) => c.name === name) ?? null);

export interface LevelCount {
  level: string;
  n: number;
}

/** Observations per level of `col`, restricted to observations where `keep` holds. */
export function countLevels(col: ObsColumn, keep: (i: number) => boolean = () => true): LevelCount[] {
  const n = new Array<number>(col.levels.length).fill(0);
  col.codes.forEach((c, i) => {
    if (c >= 0 && keep(i)) n[c]!++;
  });
  return col.levels.map((level, i) => ({ level, n: n[i]! })).filter((x) => x.n > 0);
}

export interface ArmSummary {
  arm: string;
  n: number;
  samples: number | null;
  cellTypes: LevelCount[];
}

/** Per arm of the condition: observations, distinct samples, observations per cell type. */
export function armsOf(
  table: ObsTable,
  roles: {
    condition: string | null;
    sample: string | null;
    cellType: string | null;
    cellTypeLevel: string | null;
  },
): ArmSummary[] {
  const cond = columnNamed(table, roles.condition);
  if (!cond) return [];
  const sample = columnNamed(table, roles.sample);
  const cellType = columnNamed(table, roles.cellType);
  const typeCode = cellType && roles.cellTypeLevel ? cellType.levels.indexOf(roles.cellTypeLevel) : -1;
  const inType = (i: number) => typeCode < 0 || cellType!.codes[i] === typeCode;
  return cond.levels.map((arm, a) => {
    const inArm = (i: number) => cond.codes[i] === a;
    const obs = cond.codes.map((_, i) => i).filter((i) => inArm(i) && inType(i));
    return {
      arm,
      n: obs.length,
      samples: sample ? new Set(obs.map((i) => sample.codes[i])).size : null,
      cellTypes: cellType ? countLevels(cellType, inArm) : [],
    };
  });
}
