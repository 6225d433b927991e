/**
 * The form's fields named and explained as `causeway submit` names them (its flags and help), so
 * that the page and the command line read the same.
 */
export const COLUMN_FIELDS = [
  {
    name: "condition_column",
    flag: "--condition-column",
    help: "obs column of the condition (default: detected by name)",
  },
  { name: "control_level", flag: "--control-level", help: "the control's level of the condition column" },
  { name: "sample_column", flag: "--sample-column", help: "obs column of the biological sample" },
  { name: "donor_column", flag: "--donor-column", help: "obs column of the donor (paired designs)" },
  { name: "cell_type_column", flag: "--cell-type-column", help: "obs column of the cell type" },
  { name: "cell_type", flag: "--cell-type", help: "analyse only this cell type" },
] as const;

export type ColumnField = (typeof COLUMN_FIELDS)[number]["name"];

export const HELP = {
  degs: "split shape: DEG symbols or Ensembl ids (JSON array, or one per line)",
  degsTable:
    "split shape: a DE table (DESeq2, edgeR, limma, Seurat, scanpy; tab, comma or semicolon separated); its DEGs are sent",
  padj: "with --degs-table: adjusted p-value below this (default 0.05)",
  lfc: "with --degs-table: |log2 fold change| at least this (default 1)",
  species: "species of the gene identifiers",
  prefix: "optional result-set prefix",
  modelVersion: "model version (default: the service's)",
  perturbationType: "what the perturbation was (when the model takes it)",
} as const;

export { PERTURBATION_TYPES } from "@causeway/contract";

/**
 * Observations per condition the service accepts in a merged file (after the cell type is
 * chosen), as the runner checks them (service-spec §3.1, `MAX_OBSERVATIONS`; a test keeps the
 * two equal). The runner's module is not for a browser bundle, hence the copy.
 */
export const OBS_CAP_PER_ARM = 1000;

/** A value as one shell word: quoted when it holds anything but plain characters. */
const shellWord = (v: string): string => (/^[\w.,/+:=@-]+$/.test(v) ? v : `'${v.replaceAll("'", `'\\''`)}'`);

/**
 * The `causeway prepare` command that writes a subsampled copy of `fileName` with the columns
 * given on the page (every sample kept, at most `OBS_CAP_PER_ARM` observations per condition).
 */
export function prepareCommand(fileName: string, values: Partial<Record<ColumnField, string>>): string {
  const flags = COLUMN_FIELDS.flatMap((f) => {
    const v = values[f.name]?.trim();
    return v ? [f.flag, shellWord(v)] : [];
  });
  return [
    "causeway prepare",
    shellWord(fileName),
    ...flags,
    "--max-obs",
    String(OBS_CAP_PER_ARM),
    "--out",
    "prepared",
  ].join(" ");
}
