import {
  GeneListFormatError,
  isDeStatisticColumnName,
  parseGeneList as readGeneList,
} from "@causeway/contract";

/**
 * Gene identifiers from pasted text or a file, read as the command line reads a `--degs` file
 * (the contract's reader: a JSON array or signed list, or plain text, R's quoting and a header
 * word included); JSON that is no gene list gives none, and the form says the list is empty.
 */
export function parseGeneList(text: string): string[] {
  try {
    return readGeneList(text).genes;
  } catch (err) {
    if (err instanceof GeneListFormatError) return [];
    throw err;
  }
}

/** A target as the API wants it: SYMBOL|PROTEIN (a bare symbol is taken as its protein). */
export const targetId = (t: string): string => {
  const s = t.trim();
  return s === "" || s.includes("|") ? s : `${s.toUpperCase()}|PROTEIN`;
};

/**
 * Excel turns some gene symbols into dates when a list is opened in it (Zeeberg et al. 2004,
 * Ziemann et al. 2016): MARCH1 becomes "1-Mar", SEPT2 "2-Sep", DEC1 "1-Dec" (or "Mar-01" …
 * depending on the locale). HGNC has since renamed those genes (2020, Bruford et al.) so that it
 * cannot happen again, and the web app carries no HGNC table, so the few symbols concerned are
 * mapped here to their current HGNC symbols (checked against HGNC's previous-symbol table in the
 * shared data, hgnc/alias_to_symbol.tsv.gz): MARCH1–11 → MARCHF1–11, SEPT1–14 → SEPTIN1–14
 * (SEPT13 is now the pseudogene SEPTIN7P2), DEC1 → DELEC1 (DEC1 is also an alias of BHLHE40).
 */
const EXCEL_DATE_SYMBOLS: Record<string, (n: number) => string | null> = {
  mar: (n) => (n >= 1 && n <= 11 ? `MARCHF${n}` : null),
  sep: (n) => (n === 13 ? "SEPTIN7P2" : n >= 1 && n <= 14 ? `SEPTIN${n}` : null),
  dec: (n) => (n === 1 ? "DELEC1 or BHLHE40" : null),
};

/** The current symbol(s) of a gene Excel made into a date ("1-Mar" → "MARCHF1"), or null. */
export function excelDateSymbol(input: string): string | null {
  const t = input.trim();
  const dayFirst = /^0?(\d{1,2})[-/ ]([a-z]{3})[a-z]*$/i.exec(t);
  const monthFirst = /^([a-z]{3})[a-z]*[-/ ]0?(\d{1,2})$/i.exec(t);
  const [day, month] = dayFirst
    ? [dayFirst[1]!, dayFirst[2]!]
    : monthFirst
      ? [monthFirst[2]!, monthFirst[1]!]
      : [null, null];
  if (day === null || month === null) return null;
  return EXCEL_DATE_SYMBOLS[month.toLowerCase()]?.(Number(day)) ?? null;
}

const NUMBER = /^[-+]?(\d+\.?\d*|\.\d+)([eE][-+]?\d+)?$|^(NA|NaN|-?Inf)$/i;

/**
 * Whether text pasted as a DEG list is a DE table (a header of DE statistics such as padj or
 * log2FoldChange — the contract's names — or lines of a gene and numbers): its columns, or null.
 * A list of symbols separated by commas, or one per line, is no table.
 */
export function pastedDeTable(text: string): { columns: string[] } | null {
  const lines = text
    .replace(/^\uFEFF/, "")
    .split(/\r?\n/)
    .filter((l) => l.trim() !== "");
  if (lines.length < 2) return null;
  const first = lines[0]!;
  const sep = first.includes("\t") ? "\t" : first.includes(";") ? ";" : first.includes(",") ? "," : /\s+/;
  const cells = (l: string) =>
    l
      .trim()
      .split(sep)
      .map((c) => c.trim().replace(/^["']+|["']+$/g, ""));
  const header = cells(first);
  if (header.length < 2) return null;
  const withNumbers = lines.slice(1).filter((l) => {
    const c = cells(l);
    return c.length >= 2 && c.slice(1).some((x) => NUMBER.test(x));
  }).length;
  const named = header.some((h) => isDeStatisticColumnName(h));
  if (named || withNumbers >= Math.max(1, (lines.length - 1) / 2)) return { columns: header };
  return null;
}
