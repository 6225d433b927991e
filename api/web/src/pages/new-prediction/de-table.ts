/**
 * A differential-expression table (DESeq2, edgeR, limma, Seurat FindMarkers, scanpy) read in the
 * page by the contract's DE-table reader, as `causeway submit --degs-table` reads it: its columns,
 * the ones detected for the gene, the adjusted p-value and the log2 fold change, and the DEGs at
 * chosen thresholds (`--padj`, `--lfc`). The gene column can be chosen; detected, a column of HGNC
 * symbols (`hgnc_symbol`) comes first, then the tools' usual names, then R's row names.
 */
import { degRows, readDeTableFile } from "@causeway/contract";

/** ROW_NAMES: the name under which R's unnamed row-name column is offered. */
export { DeTableFormatError, ROW_NAMES } from "@causeway/contract";

export interface DeTable {
  columns: string[];
  rows: string[][];
  detected: { gene: string | null; padj: string | null; lfc: string | null };
}

/** Throws the contract's DeTableFormatError when the text is not a delimited table. */
export function readDeTable(text: string): DeTable {
  const { columns, rows, detected } = readDeTableFile(text);
  return { columns, rows, detected: { gene: detected.gene, padj: detected.padj, lfc: detected.foldChange } };
}

/**
 * The genes whose adjusted p-value is below `padjMax` and whose |log2 fold change| is at least
 * `lfcMin`, each once; rows missing either value are never DEGs.
 */
export function degsOf(
  t: DeTable,
  cols: { gene: string; padj: string; lfc: string },
  padjMax: number,
  lfcMin: number,
): string[] {
  const { genes } = degRows(
    t,
    { gene: cols.gene, padj: cols.padj, foldChange: cols.lfc },
    { padjMax, lfcMin },
  );
  return [...new Set(genes.filter((g) => g !== null))];
}
