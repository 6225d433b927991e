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

/**
 * Why a file chosen as a DE table is no text table at all, from its first bytes, or null: an
 * Excel workbook, a PDF, an archive, an HDF5 file, or any file with NUL bytes that is not UTF-16
 * (a byte-order mark says so). Said instead of the CSV parser's complaint about its bytes.
 */
export function notATextTable(head: Uint8Array): string | null {
  const starts = (...bytes: number[]) => bytes.every((b, i) => head[i] === b);
  if (starts(0xff, 0xfe) || starts(0xfe, 0xff)) return null;
  const text = "This is not a text table (CSV/TSV)";
  if (starts(0x50, 0x4b, 0x03, 0x04))
    return `${text}: it is a ZIP archive, such as an Excel workbook; save the sheet as CSV (File › Save As › CSV) and choose that.`;
  if (starts(0x25, 0x50, 0x44, 0x46)) return `${text}: it is a PDF; choose the table your DE tool wrote.`;
  if (starts(0x1f, 0x8b)) return `${text}: it is gzip-compressed; decompress it first.`;
  if (starts(0x89, 0x48, 0x44, 0x46))
    return `${text}: it is an HDF5 file (an .h5ad?); a DE table is the text file your DE tool wrote.`;
  if (head.includes(0))
    return `${text}; choose the table your DE tool wrote (DESeq2, edgeR, limma, Seurat, scanpy).`;
  return null;
}
