/**
 * A differential-expression table (DESeq2, edgeR, limma, Seurat FindMarkers) read in the page:
 * its columns, the ones detected for the gene, the adjusted p-value and the log2 fold change,
 * and the DEGs at chosen thresholds (`--degs-table`, `--padj`, `--lfc` of `causeway submit`).
 * The gene column can be chosen; detected, a column of HGNC symbols (`hgnc_symbol`) comes first,
 * then the tools' usual names, then R's row names.
 */

const PADJ = ["padj", "fdr", "adj.p.val", "p_val_adj", "qvalue", "q_value", "adj_pval", "padj_bh"];
const LFC = ["log2foldchange", "logfc", "avg_log2fc", "log2fc", "avg_logfc", "lfc"];
const GENE = [
  "hgnc_symbol",
  "symbol",
  "gene_symbol",
  "gene_name",
  "gene",
  "genes",
  "gene_id",
  "feature",
  "id",
  "names",
];
/** The name under which R's unnamed row-name column is offered. */
export const ROW_NAMES = "(row names)";

export interface DeTable {
  columns: string[];
  rows: string[][];
  detected: { gene: string | null; padj: string | null; lfc: string | null };
}

const unquote = (s: string): string => s.trim().replace(/^"(.*)"$/, "$1");

export function readDeTable(text: string): DeTable {
  const lines = text.split(/\r?\n/).filter((l) => l.trim() !== "");
  const sep = lines[0]?.includes("\t") ? "\t" : ",";
  const split = lines.map((l) => l.split(sep).map(unquote));
  let header = split[0] ?? [];
  // R's write.table leaves the row-name column without a header (one field fewer, or "").
  if (split.length > 1 && split[1]!.length === header.length + 1) header = [ROW_NAMES, ...header];
  else if (header[0] === "") header = [ROW_NAMES, ...header.slice(1)];
  const find = (names: string[]) =>
    names.map((n) => header.find((h) => h.trim().toLowerCase() === n)).find((h) => h !== undefined) ?? null;
  return {
    columns: header,
    rows: split.slice(1),
    detected: {
      gene: find(GENE) ?? (header[0] === ROW_NAMES ? ROW_NAMES : (header[0] ?? null)),
      padj: find(PADJ),
      lfc: find(LFC),
    },
  };
}

/** The genes whose adjusted p-value is below `padjMax` and whose |log2 fold change| is at least `lfcMin`. */
export function degsOf(
  t: DeTable,
  cols: { gene: string; padj: string; lfc: string },
  padjMax: number,
  lfcMin: number,
): string[] {
  const [g, p, f] = [cols.gene, cols.padj, cols.lfc].map((c) => t.columns.indexOf(c));
  if (g! < 0 || p! < 0 || f! < 0) return [];
  const seen = new Set<string>();
  for (const row of t.rows) {
    const gene = row[g!] ?? "";
    const padj = Number(row[p!]);
    const lfc = Number(row[f!]);
    if (gene !== "" && gene !== "NA" && padj < padjMax && Math.abs(lfc) >= lfcMin) seen.add(gene);
  }
  return [...seen];
}
