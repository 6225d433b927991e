/**
 * A user-supplied DE table for DEG-list input (command line, validation cases): genes in the
 * first column, or in a curated `hgnc_symbol` column when the table has one (the same
 * preference as a `var["hgnc_symbol"]` column of an upload, model.md §3.4 rule 1), fold
 * changes in `logFC`, and the signed test statistic when the table has one: limma's `t`,
 * DESeq2's `stat` (Wald), or edgeR's likelihood ratio `LR` signed by the fold change (√LR is
 * |z| for one degree of freedom). Genes are normalized to HGNC symbols; unresolved ones are
 * dropped.
 */
import { numberCell, parseTsv } from "../artifacts/tsv.ts";
import type { SymbolTable } from "../symbols/index.ts";

export interface DeTable {
  /** Distinct normalized symbols in table order. */
  genes: string[];
  /** log2 fold change per gene (aligned with `genes`); null without a `logFC` column or value. */
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
  const { columns, rows } = parseTsv(text);
  const curated = columns.indexOf("hgnc_symbol");
  const fc = columns.indexOf("logFC");
  const expr = columns.indexOf("mean_cp10k_ctrl");
  const signed = columns.indexOf("t") >= 0 ? columns.indexOf("t") : columns.indexOf("stat");
  const lr = columns.indexOf("LR");
  const statOf = (cells: readonly string[]): number | null => {
    if (signed >= 0) return numberCell(cells[signed]);
    const [ratio, fold] = [numberCell(cells[lr]), numberCell(cells[fc])];
    return ratio === null || fold === null ? null : Math.sign(fold) * Math.sqrt(ratio);
  };
  const seen = new Set<string>();
  const table: DeTable = {
    genes: [],
    logFC: [],
    meanCp10kCtrl: expr >= 0 ? [] : null,
    stat: signed >= 0 || (lr >= 0 && fc >= 0) ? [] : null,
  };
  for (const cells of rows) {
    const curatedCell = curated >= 0 ? cells[curated] : undefined;
    const name = curatedCell && curatedCell !== "NA" ? curatedCell : (cells[0] ?? "");
    const symbol = symbols.resolve(name);
    if (symbol === null || seen.has(symbol)) continue;
    seen.add(symbol);
    table.genes.push(symbol);
    table.logFC.push(fc >= 0 ? numberCell(cells[fc]) : null);
    table.meanCp10kCtrl?.push(numberCell(cells[expr]));
    table.stat?.push(statOf(cells));
  }
  return table;
}
