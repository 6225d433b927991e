/**
 * A differential-expression table (DESeq2, edgeR, limma, Seurat FindMarkers) turned into the DEG
 * list the service takes: the rows whose adjusted p-value is below a threshold and whose absolute
 * log2 fold change reaches another. Column names are the tools' own; the gene is the first
 * column (row names, as R writes them) unless a gene column is named.
 */
import { CausewayError } from "./errors.ts";

const PADJ = ["padj", "fdr", "adj.p.val", "p_val_adj", "qvalue", "q_value", "adj_pval", "padj_bh"];
const LFC = ["log2foldchange", "logfc", "avg_log2fc", "log2fc", "avg_logfc", "lfc"];
const GENE = ["gene", "genes", "symbol", "gene_symbol", "gene_name", "gene_id", "feature", "id", "names"];

export interface DeTableSelection {
  degs: string[];
  nRows: number;
  columns: { gene: string; padj: string; lfc: string };
}

const unquote = (s: string): string => s.trim().replace(/^"(.*)"$/, "$1");

/** Splits on tabs when the header has any, else on commas (quoted fields without embedded commas). */
function rowsOf(text: string): string[][] {
  const lines = text.split(/\r?\n/).filter((l) => l.trim() !== "");
  const sep = lines[0]?.includes("\t") ? "\t" : ",";
  return lines.map((l) => l.split(sep).map(unquote));
}

export function selectDegs(
  text: string,
  padjMax: number,
  lfcMin: number,
  file = "the DE table",
): DeTableSelection {
  const rows = rowsOf(text);
  const header = rows[0] ?? [];
  const find = (names: string[]) => header.findIndex((h) => names.includes(h.trim().toLowerCase()));
  const padj = find(PADJ);
  const lfc = find(LFC);
  if (padj < 0 || lfc < 0)
    throw new CausewayError(
      "invalid_input",
      `${file}: needs an adjusted p-value column (${PADJ.join(", ")}) and a log2 fold-change column (${LFC.join(", ")}); its header is ${header.join(", ")}`,
      0,
    );
  // R's write.table leaves the row-name column without a header (one field fewer, or "").
  const shifted = rows.length > 1 && rows[1]!.length === header.length + 1;
  const named = find(GENE);
  const gene = shifted ? 0 : named >= 0 ? named : 0;
  const at = (row: string[], col: number) => row[shifted ? col + 1 : col] ?? "";
  const degs: string[] = [];
  for (const row of rows.slice(1)) {
    const p = Number(at(row, padj));
    const f = Number(at(row, lfc));
    const g = shifted ? (row[0] ?? "") : (row[gene] ?? "");
    if (g !== "" && Number.isFinite(p) && Number.isFinite(f) && p < padjMax && Math.abs(f) >= lfcMin)
      degs.push(g);
  }
  return {
    degs,
    nRows: rows.length - 1,
    columns: {
      gene: shifted ? "(row names)" : header[gene] || "(first column)",
      padj: header[padj]!,
      lfc: header[lfc]!,
    },
  };
}
