/**
 * A user-supplied DE table for DEG-list input (command line, validation cases), read by the
 * contract's DE-table reader (DESeq2, edgeR, limma, Seurat, scanpy; tab, comma or semicolon
 * separated). Genes come from the first gene column with a value in the row, in the contract's
 * order of preference (a curated `hgnc_symbol` first: the same preference as a
 * `var["hgnc_symbol"]` column of an upload, model.md §3.4 rule 1), else from the first column
 * (R's row names). Fold changes come from the fold-change column (log2), and the signed test
 * statistic from the table's statistic column (limma's `t`, DESeq2's `stat`, scanpy's
 * `scores`), else edgeR's likelihood ratio `LR` signed by the fold change (√LR is |z| for one
 * degree of freedom). Genes are normalized to HGNC symbols; unresolved ones are dropped.
 */
import {
  columnsOf,
  DeTableFormatError,
  isMissingCell,
  log2FoldChangeCell,
  missingColumnsMessage,
  numberCell,
  readDeTableFile,
} from "@causeway/contract";
import type { SymbolTable } from "../symbols/index.ts";

export interface DeTable {
  /** Distinct normalized symbols in table order. */
  genes: string[];
  /** log2 fold change per gene (aligned with `genes`); null without a fold-change column or value. */
  logFC: (number | null)[];
  /**
   * Control-arm mean CP10k per gene (aligned with `genes`) from a `mean_cp10k_ctrl` column (the
   * runner's own degs.tsv carries one); null when the table has no such column.
   */
  meanCp10kCtrl: (number | null)[] | null;
  /** The signed test statistic per gene (aligned with `genes`); null when the table has none. */
  stat: (number | null)[] | null;
}

export function readDeTable(text: string, symbols: Pick<SymbolTable, "resolve">): DeTable {
  const { columns, rows, detected } = readDeTableFile(text);
  const index = (name: string | null): number => (name === null ? -1 : columns.indexOf(name));
  const fc = index(detected.foldChange);
  const expr = index(detected.meanCp10kControl);
  const signed = index(detected.statistic);
  const lr = index(detected.likelihoodRatio);
  const hasStat = signed >= 0 || (lr >= 0 && fc >= 0);
  if (fc < 0 && expr < 0 && !hasStat)
    throw new DeTableFormatError(
      `the DE table ${missingColumnsMessage(["foldChange", "statistic", "meanCp10kControl"], columns, "one")}`,
    );
  // The first column is R's row names, or the genes of a table that names none of its columns.
  const geneColumns = [...new Set([...columnsOf(columns, "gene"), 0])];

  const foldChangeOf = (cells: readonly string[]): number | null =>
    fc >= 0 ? log2FoldChangeCell(columns[fc]!, cells[fc]) : null;
  const statOf = (cells: readonly string[]): number | null => {
    if (signed >= 0) return numberCell(cells[signed]);
    const [ratio, fold] = [numberCell(cells[lr]), foldChangeOf(cells)];
    return ratio === null || fold === null ? null : Math.sign(fold) * Math.sqrt(ratio);
  };
  const seen = new Set<string>();
  const table: DeTable = {
    genes: [],
    logFC: [],
    meanCp10kCtrl: expr >= 0 ? [] : null,
    stat: hasStat ? [] : null,
  };
  for (const cells of rows) {
    const name = geneColumns.map((i) => cells[i]).find((cell) => !isMissingCell(cell)) ?? "";
    const symbol = symbols.resolve(name);
    if (symbol === null || seen.has(symbol)) continue;
    seen.add(symbol);
    table.genes.push(symbol);
    table.logFC.push(foldChangeOf(cells));
    table.meanCp10kCtrl?.push(numberCell(cells[expr]));
    table.stat?.push(statOf(cells));
  }
  if (rows.length > 0 && table.genes.length === 0)
    throw new DeTableFormatError(
      `none of the DE table's ${rows.length} genes (in ${geneColumns.map((i) => columns[i]).join(", ")}) is a known HGNC symbol`,
    );
  return table;
}
