/**
 * A differential-expression table (DESeq2, edgeR, limma, Seurat FindMarkers) turned into the DEG
 * list the service takes: the rows whose adjusted p-value is below a threshold and whose absolute
 * log2 fold change reaches another. Column names are the tools' own. The gene column is the one
 * named, else the first present of GENE (a curated `hgnc_symbol` first: tables keep it beside a
 * `gene` column of row names such as `TAP1_ENSG00000168394` that no symbol table resolves), else
 * the row names (the first column, as R writes them).
 */
import { CausewayError } from "./errors.ts";

const PADJ = ["padj", "fdr", "adj.p.val", "p_val_adj", "qvalue", "q_value", "adj_pval", "padj_bh"];
const LFC = ["log2foldchange", "logfc", "avg_log2fc", "log2fc", "avg_logfc", "lfc"];
/** Gene columns in order of preference: curated symbols, then symbols, then names or ids. */
export const GENE_COLUMNS = [
  "hgnc_symbol",
  "mgi_symbol",
  "gene_symbol",
  "symbol",
  "gene_name",
  "external_gene_name",
  "gene",
  "genes",
  "gene_id",
  "ensembl_gene_id",
  "feature",
  "id",
  "names",
];

/** Row names that glue a symbol to an Ensembl id (Seurat's make.unique on duplicated symbols, Cell Ranger features). */
const GLUED_ID = /^[^_]+[_.-]ENS[A-Z]*G\d{6,}/;

export interface DeTableSelection {
  degs: string[];
  nRows: number;
  columns: { gene: string; padj: string; lfc: string };
  /** How the gene column was chosen: named by the user, found by its name, or the row names. */
  geneColumnFrom: "option" | "name" | "row_names";
  /** Things the user should know about the chosen gene column (glued ids, empty cells). */
  notes: string[];
}

const unquote = (s: string): string => s.trim().replace(/^"(.*)"$/, "$1");

/** Splits on tabs when the header holds a tab, else on commas (quoted fields without embedded commas). */
function rowsOf(text: string): string[][] {
  const lines = text.split(/\r?\n/).filter((l) => l.trim() !== "");
  const sep = lines[0]?.includes("\t") ? "\t" : ",";
  return lines.map((l) => l.split(sep).map(unquote));
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
  const rows = rowsOf(text);
  const header = rows[0] ?? [];
  const lower = header.map((h) => h.trim().toLowerCase());
  const find = (names: readonly string[]) => {
    for (const n of names) {
      const i = lower.indexOf(n);
      if (i >= 0) return i;
    }
    return -1;
  };
  const padj = lower.findIndex((h) => PADJ.includes(h));
  const lfc = lower.findIndex((h) => LFC.includes(h));
  if (padj < 0 || lfc < 0)
    throw new CausewayError(
      "invalid_input",
      `${file}: needs an adjusted p-value column (${PADJ.join(", ")}) and a log2 fold-change column (${LFC.join(", ")}); its header is ${header.join(", ")}`,
      0,
    );
  // R's write.table leaves the row-name column without a header (one field fewer, or "").
  const shifted = rows.length > 1 && rows[1]!.length === header.length + 1;
  const at = (row: string[], col: number) => row[shifted ? col + 1 : col] ?? "";

  let gene: number | "row_names";
  let geneColumnFrom: DeTableSelection["geneColumnFrom"];
  if (o.geneColumn !== undefined) {
    const i = lower.indexOf(o.geneColumn.trim().toLowerCase());
    if (i < 0)
      throw new CausewayError(
        "invalid_input",
        `${file}: no column "${o.geneColumn}" (--degs-table-gene-column); its header is ${header.join(", ")}`,
        0,
      );
    gene = i;
    geneColumnFrom = "option";
  } else {
    const named = find(GENE_COLUMNS);
    // An unnamed first column (DESeq2's write.csv) holds the row names.
    gene = named >= 0 ? named : shifted ? "row_names" : 0;
    geneColumnFrom = named >= 0 ? "name" : "row_names";
  }
  const geneOf = (row: string[]) => (gene === "row_names" ? (row[0] ?? "") : at(row, gene));

  const degs: string[] = [];
  let glued = 0;
  let empty = 0;
  for (const row of rows.slice(1)) {
    const p = Number(at(row, padj));
    const f = Number(at(row, lfc));
    if (!(Number.isFinite(p) && Number.isFinite(f) && p < o.padj && Math.abs(f) >= o.lfc)) continue;
    const g = geneOf(row).trim();
    if (g === "") empty++;
    else {
      if (GLUED_ID.test(g)) glued++;
      degs.push(g);
    }
  }
  const geneName =
    gene === "row_names"
      ? "(row names)"
      : header[gene] || (gene === 0 ? "(first column)" : `column ${gene + 1}`);
  const notes: string[] = [];
  if (empty > 0) notes.push(`${empty} passing rows have no value in ${geneName} and are left out`);
  if (glued > 0) {
    const other = GENE_COLUMNS.slice(0, 6)
      .map((n) => header[lower.indexOf(n)])
      .find((h) => h !== undefined && h !== header[gene as number]);
    notes.push(
      `${glued} genes in ${geneName} carry an Ensembl id (e.g. TAP1_ENSG00000168394), which the service may not resolve` +
        (other ? `; ${other} looks like symbols: --degs-table-gene-column ${other}` : ""),
    );
  }
  return {
    degs,
    nRows: rows.length - 1,
    columns: { gene: geneName, padj: header[padj]!, lfc: header[lfc]! },
    geneColumnFrom,
    notes,
  };
}
