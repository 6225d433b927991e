/**
 * Differential-expression tables as the tools write them (DESeq2, PyDESeq2, edgeR, limma,
 * Seurat FindMarkers, scanpy's rank_genes_groups_df), read once for every component: the
 * command line's `--degs-table`, the web app's DE-table field and the runner's `--de-table`.
 *
 * The text is delimited by tabs, commas or semicolons (the header line decides; a semicolon
 * table comes from a European spreadsheet, whose numbers carry a decimal comma), quoted as in
 * RFC 4180, possibly with a byte-order mark and CRLF line ends. A header one field short of the
 * rows (R's write.table) or with an empty first cell (R's write.csv) names no row-name column:
 * that column is offered as ROW_NAMES. Columns are found by the tools' own names, compared
 * without case; missing numbers (empty, NA, NaN, ...) are null, never 0.
 */
// The package's `#csv-parse` import is csv-parse's sync parser: its Node build reads the global
// Buffer when it loads, so browsers get the build that carries its own (crds/package.json).
import { parse } from "#csv-parse";

/** The name under which a table's unnamed row-name column is offered. */
export const ROW_NAMES = "(row names)";

/** Column names of each role, lower case, in order of preference. */
export const DE_TABLE_COLUMNS = {
  /**
   * Curated symbols first: tables keep `hgnc_symbol` beside a `gene` column of row names such
   * as `TAP1_ENSG00000168394` that no symbol table resolves; then symbols, then names or ids.
   */
  gene: [
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
  ],
  padj: [
    "padj",
    "fdr",
    "adj.p.val",
    "p_val_adj",
    "pvals_adj",
    "qvalue",
    "q_value",
    "q.value",
    "adj_pval",
    "adj.pval",
    "p_adj",
    "padj_bh",
  ],
  /** Log2 fold changes, then the natural-log ones of NATURAL_LOG_FOLD_CHANGES. */
  foldChange: [
    "log2foldchange",
    "logfc",
    "avg_log2fc",
    "log2fc",
    "logfoldchanges",
    "log2_fold_change",
    "lfc",
    "avg_logfc",
  ],
  /** Signed test statistics: limma's t, DESeq2's Wald stat, scanpy's scores (a z-score). */
  statistic: ["t", "stat", "scores"],
  /** edgeR's likelihood ratio, unsigned. */
  likelihoodRatio: ["lr"],
  /** The control arm's mean CP10k (the runner's own degs.tsv). */
  meanCp10kControl: ["mean_cp10k_ctrl"],
} as const satisfies Record<string, readonly string[]>;

export type DeColumnRole = keyof typeof DE_TABLE_COLUMNS;

/** Columns the tools write beside the ones read: means, standard errors, raw p-values, detection rates. */
const OTHER_DE_TABLE_COLUMNS = [
  "basemean",
  "lfcse",
  "pvalue",
  "logcpm",
  "aveexpr",
  "p.value",
  "p_val",
  "pvals",
  "pct.1",
  "pct.2",
];

// limma's `t` is left out: it is also a gene's previous symbol (T, now TBXT), so a gene list may hold it.
const DE_COLUMN_NAMES = new Set<string>(
  [
    ...Object.entries(DE_TABLE_COLUMNS).flatMap(([role, names]) => (role === "gene" ? [] : names)),
    ...OTHER_DE_TABLE_COLUMNS,
  ].filter((name) => name !== "t"),
);

/** Whether `name` is a column a DE tool writes (not its gene column), without regard to case. */
export const isDeStatisticColumnName = (name: string): boolean =>
  DE_COLUMN_NAMES.has(name.trim().toLowerCase());

/** Whether `name` is one of the names a DE table's gene column goes by, without regard to case. */
export const isGeneColumnName = (name: string): boolean =>
  (DE_TABLE_COLUMNS.gene as readonly string[]).includes(name.trim().toLowerCase());

/**
 * Seurat before version 4 wrote `avg_logFC` as a natural log (version 4 renamed it `avg_log2FC`
 * when it moved to log2); fold changes read from it are divided by ln 2.
 */
const NATURAL_LOG_FOLD_CHANGES: readonly string[] = ["avg_logfc"];

/** Labels of the roles in messages. */
const ROLE_LABELS: Record<DeColumnRole, string> = {
  gene: "a gene column",
  padj: "an adjusted p-value column",
  foldChange: "a log2 fold-change column",
  statistic: "a test-statistic column",
  likelihoodRatio: "a likelihood-ratio column",
  meanCp10kControl: "a control-arm expression column",
};

/** A table that cannot be read, or lacks the columns its reader needs. */
export class DeTableFormatError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "DeTableFormatError";
  }
}

export type Separator = "\t" | "," | ";";

export interface DeTableFile {
  /** The header; R's unnamed row-name column is ROW_NAMES. */
  columns: string[];
  /** The data rows, cells aligned with `columns`; numbers of a semicolon table carry a decimal point. */
  rows: string[][];
  separator: Separator;
  /** The preferred column of each role, or null; `gene` falls back to the row names or the first column. */
  detected: Record<DeColumnRole, string | null>;
}

export function readDeTableFile(text: string): DeTableFile {
  const body = text.replace(/^\uFEFF/, "");
  const separator = separatorOf(body.slice(0, body.search(/\r|\n|$/)));
  const [header = [], ...rows] = parseDelimited(body, separator).map((cells) =>
    separator === ";" ? cells.map(withDecimalPoint) : cells,
  );
  const columns = withRowNames(header, rows[0]);
  return { columns, rows, separator, detected: detectColumns(columns) };
}

/** A tab anywhere in the header makes a TSV; else the more frequent of `;` and `,`. */
function separatorOf(headerLine: string): Separator {
  if (headerLine.includes("\t")) return "\t";
  const count = (c: string) => headerLine.split(c).length - 1;
  return count(";") > count(",") ? ";" : ",";
}

function parseDelimited(text: string, separator: Separator): string[][] {
  try {
    const records = parse(text, {
      delimiter: separator,
      // Unquoted descriptions hold quotes of their own (5' UTR, 12" long).
      relax_quotes: true,
      // R's header is one field short of its rows.
      relax_column_count: true,
      skip_empty_lines: true,
      trim: true,
    });
    return records.filter((cells) => cells.some((c) => c !== ""));
  } catch (err) {
    throw new DeTableFormatError(
      `cannot be read as a table: ${err instanceof Error ? err.message : String(err)}`,
    );
  }
}

const DECIMAL_COMMA = /^[+-]?\d*,\d+(?:[eE][+-]?\d+)?$/;
const withDecimalPoint = (cell: string): string => (DECIMAL_COMMA.test(cell) ? cell.replace(",", ".") : cell);

/** R writes row names under no header: one field short of the rows, or an empty first field. */
function withRowNames(header: string[], firstRow: string[] | undefined): string[] {
  if (firstRow !== undefined && firstRow.length === header.length + 1) return [ROW_NAMES, ...header];
  if (header[0] === "") return [ROW_NAMES, ...header.slice(1)];
  return header;
}

function detectColumns(columns: readonly string[]): Record<DeColumnRole, string | null> {
  const preferred = (role: DeColumnRole): string | null => {
    const [i] = columnsOf(columns, role);
    return i === undefined ? null : columns[i]!;
  };
  return {
    gene: preferred("gene") ?? columns[0] ?? null,
    padj: preferred("padj"),
    foldChange: preferred("foldChange"),
    statistic: preferred("statistic"),
    likelihoodRatio: preferred("likelihoodRatio"),
    meanCp10kControl: preferred("meanCp10kControl"),
  };
}

/** Indices of the columns that play `role`, in order of preference. */
export function columnsOf(columns: readonly string[], role: DeColumnRole): number[] {
  const lower = columns.map((c) => c.toLowerCase());
  return DE_TABLE_COLUMNS[role].map((name) => lower.indexOf(name)).filter((i) => i >= 0);
}

/** Index of a column named without regard to case, or -1. */
export function columnIndex(columns: readonly string[], name: string): number {
  const wanted = name.trim().toLowerCase();
  return columns.findIndex((c) => c.toLowerCase() === wanted);
}

/**
 * "needs an adjusted p-value column (padj, fdr, ...) and a log2 fold-change column (...); its
 * header is ...": what a reader looked for (all the roles, or one of them) and what the table has.
 */
export function missingColumnsMessage(
  roles: readonly DeColumnRole[],
  columns: readonly string[],
  needs: "all" | "one" = "all",
): string {
  const wanted = roles.map((r) => `${ROLE_LABELS[r]} (${DE_TABLE_COLUMNS[r].join(", ")})`);
  const header = columns.length > 0 ? `its header is ${columns.join(", ")}` : "it has no header";
  return `needs ${wanted.join(needs === "all" ? " and " : " or ")}; ${header}`;
}

/** Cells that stand for a missing value in R, pandas, spreadsheets and JSON-minded exports. */
const MISSING = new Set(["", "na", "nan", "n/a", "#n/a", "-", "null", "none"]);
const INFINITE = new Map([
  ["inf", Infinity],
  ["+inf", Infinity],
  ["infinity", Infinity],
  ["+infinity", Infinity],
  ["-inf", -Infinity],
  ["-infinity", -Infinity],
]);

export const isMissingCell = (cell: string | undefined): boolean =>
  cell === undefined || MISSING.has(cell.trim().toLowerCase());

/** A numeric cell; missing or non-numeric cells are null, and R's `Inf` / `-Inf` stay infinite. */
export function numberCell(cell: string | undefined): number | null {
  if (cell === undefined || isMissingCell(cell)) return null;
  const text = cell.trim().toLowerCase();
  const v = INFINITE.get(text) ?? Number(text);
  return Number.isNaN(v) ? null : v;
}

export const isNaturalLogFoldChange = (column: string): boolean =>
  NATURAL_LOG_FOLD_CHANGES.includes(column.toLowerCase());

/** A fold-change cell of `column` as a log2 fold change. */
export function log2FoldChangeCell(column: string, cell: string | undefined): number | null {
  const v = numberCell(cell);
  return v !== null && isNaturalLogFoldChange(column) ? v / Math.LN2 : v;
}

export interface DegRule {
  /** Adjusted p-values below this pass. */
  padjMax: number;
  /** Absolute log2 fold changes at least this pass. */
  lfcMin: number;
}

export interface DegRows {
  /** The gene cell of each passing row, in table order; null where it is missing. */
  genes: (string | null)[];
  /** Rows with no adjusted p-value (DESeq2's independent filtering and outliers): never DEGs. */
  missingPadj: number;
  /** Rows with an adjusted p-value but no fold change: never DEGs. */
  missingFoldChange: number;
}

/**
 * The rows whose adjusted p-value is below `padjMax` and whose absolute log2 fold change is at
 * least `lfcMin`. An infinite fold change (a gene absent from one arm) passes the fold-change
 * threshold. Columns are named as in `table.columns`; an unknown column selects nothing.
 */
export function degRows(
  table: Pick<DeTableFile, "columns" | "rows">,
  columns: { gene: string; padj: string; foldChange: string },
  rule: DegRule,
): DegRows {
  const [g, p, f] = [columns.gene, columns.padj, columns.foldChange].map((c) => table.columns.indexOf(c));
  const picked: DegRows = { genes: [], missingPadj: 0, missingFoldChange: 0 };
  if (g! < 0 || p! < 0 || f! < 0) return picked;
  for (const row of table.rows) {
    const padj = numberCell(row[p!]);
    const lfc = log2FoldChangeCell(columns.foldChange, row[f!]);
    if (padj === null) picked.missingPadj++;
    else if (lfc === null) picked.missingFoldChange++;
    else if (padj < rule.padjMax && Math.abs(lfc) >= rule.lfcMin)
      picked.genes.push(isMissingCell(row[g!]) ? null : row[g!]!);
  }
  return picked;
}
