/**
 * A differential-expression table (DESeq2, edgeR, limma, Seurat FindMarkers, scanpy) turned into
 * the DEG list the service takes: the rows whose adjusted p-value is below a threshold and whose
 * absolute log2 fold change reaches another. The table is read by the contract's DE-table reader
 * (column names are the tools' own). The gene column is the one named, else the first present of
 * GENE_COLUMNS, else the row names (the first column, as R writes them).
 */
import {
  columnIndex,
  columnsOf,
  DE_TABLE_COLUMNS,
  DeTableFormatError,
  degRows,
  isNaturalLogFoldChange,
  missingColumnsMessage,
  readDeTableFile,
  ROW_NAMES,
  type DeTableFile,
} from "@causeway/contract";
import { CausewayError } from "./errors.ts";

/** Gene columns in order of preference: curated symbols, then symbols, then names or ids. */
export const GENE_COLUMNS = DE_TABLE_COLUMNS.gene;
/** The gene columns that hold symbols, offered when the chosen one glues Ensembl ids to them. */
const SYMBOL_COLUMNS: readonly string[] = GENE_COLUMNS.slice(0, 6);

/** Row names that glue a symbol to an Ensembl id (Seurat's make.unique on duplicated symbols, Cell Ranger features). */
const GLUED_ID = /^[^_]+[_.-]ENS[A-Z]*G\d{6,}/;

export interface DeTableSelection {
  degs: string[];
  nRows: number;
  columns: { gene: string; padj: string; lfc: string };
  /** How the gene column was chosen: named by the user, found by its name, or the row names. */
  geneColumnFrom: "option" | "name" | "row_names";
  /** Things the user should know about the table and its chosen columns (glued ids, empty cells, rows left out). */
  notes: string[];
}

export interface SelectDegsOptions {
  padj: number;
  lfc: number;
  /** The gene column's name (case-insensitive); detected when absent. */
  geneColumn?: string;
  /** The file's name in messages. */
  file?: string;
}

export function selectDegs(text: string, o: SelectDegsOptions): DeTableSelection {
  const file = o.file ?? "the DE table";
  const table = readTable(text, file);
  const { padj, foldChange: lfc } = table.detected;
  if (padj === null || lfc === null) {
    const roles = (["padj", "foldChange"] as const).filter((r) => table.detected[r] === null);
    throw new CausewayError("invalid_input", `${file}: ${missingColumnsMessage(roles, table.columns)}`, 0);
  }
  const { gene, geneColumnFrom } = geneColumnOf(table, o.geneColumn, file);

  const picked = degRows(table, { gene, padj, foldChange: lfc }, { padjMax: o.padj, lfcMin: o.lfc });
  const degs = picked.genes.filter((g) => g !== null);
  const notes: string[] = [];
  const empty = picked.genes.length - degs.length;
  if (empty > 0) notes.push(`${empty} passing rows have no value in ${gene} and are left out`);
  const glued = degs.filter((g) => GLUED_ID.test(g)).length;
  if (glued > 0) {
    const other = columnsOf(table.columns, "gene")
      .map((i) => table.columns[i]!)
      .find((c) => SYMBOL_COLUMNS.includes(c.toLowerCase()) && c !== gene);
    notes.push(
      `${glued} genes in ${gene} carry an Ensembl id (e.g. TAP1_ENSG00000168394), which the service may not resolve` +
        (other ? `; ${other} looks like symbols: --degs-table-gene-column ${other}` : ""),
    );
  }
  if (picked.missingPadj > 0)
    notes.push(`left out: ${rows(picked.missingPadj)} with no ${padj} (e.g. DESeq2's independent filtering)`);
  if (picked.missingFoldChange > 0) notes.push(`left out: ${rows(picked.missingFoldChange)} with no ${lfc}`);
  if (isNaturalLogFoldChange(lfc))
    notes.push(
      `${lfc} is a natural log (Seurat before version 4): read as log2 fold changes divided by ln 2`,
    );
  return { degs, nRows: table.rows.length, columns: { gene, padj, lfc }, geneColumnFrom, notes };
}

const rows = (n: number): string => (n === 1 ? "1 row" : `${n} rows`);

function readTable(text: string, file: string): DeTableFile {
  try {
    return readDeTableFile(text);
  } catch (err) {
    if (err instanceof DeTableFormatError)
      throw new CausewayError("invalid_input", `${file}: ${err.message}`, 0);
    throw err;
  }
}

function geneColumnOf(
  table: DeTableFile,
  named: string | undefined,
  file: string,
): { gene: string; geneColumnFrom: DeTableSelection["geneColumnFrom"] } {
  if (named !== undefined) {
    const i = columnIndex(table.columns, named);
    if (i < 0)
      throw new CausewayError(
        "invalid_input",
        `${file}: no column "${named}" (--degs-table-gene-column); its header is ${table.columns.join(", ")}`,
        0,
      );
    return { gene: table.columns[i]!, geneColumnFrom: "option" };
  }
  const [found] = columnsOf(table.columns, "gene");
  if (found !== undefined) return { gene: table.columns[found]!, geneColumnFrom: "name" };
  // R's row names, named or not: the first column.
  return { gene: table.columns[0] ?? ROW_NAMES, geneColumnFrom: "row_names" };
}
