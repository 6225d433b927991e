/**
 * A DEG list that is really a table. Users paste or split a DESeq2/edgeR/limma result where a
 * list of symbols belongs; accepting it makes the header and every number a "DEG" (thousands of
 * unresolved entries, the universe counted as DEGs) and the job completes with meaningless
 * scores. Gene symbols are never numbers, never hold tabs or commas, and never spell a DE
 * table's column names (the contract's DE-table reader knows them), so any of those is refused
 * with what was seen.
 */
import { isDeStatisticColumnName, isGeneColumnName } from "@causeway/contract";

const NUMBER_RE = /^[-+]?(\d+\.?\d*|\.\d+)([eE][-+]?\d+)?$|^(NA|NaN|Inf|-Inf)$/i;

const quote = (s: string): string => JSON.stringify(s.length > 40 ? `${s.slice(0, 40)}…` : s);
const examples = (xs: string[]): string => xs.slice(0, 3).map(quote).join(", ");

/** What makes the entries look like a table, or null when they look like a list of identifiers. */
export function tableLikeEntries(entries: readonly string[]): string | null {
  const separated = entries.filter((e) => /[\t,;]/.test(e));
  if (separated.length > 0)
    return `${separated.length} entr${separated.length === 1 ? "y holds" : "ies hold"} tabs, commas or semicolons (e.g. ${examples(separated)})`;
  const header = entries.filter((e) => isDeStatisticColumnName(e) || isGeneColumnName(e));
  const numbers = entries.filter((e) => NUMBER_RE.test(e.trim()));
  // "gene" or "symbol" alone may be a stray header word; with a DE column or numbers it is a table.
  const deColumns = header.filter(isDeStatisticColumnName);
  if (deColumns.length > 0 || (header.length > 0 && numbers.length > 0))
    return `a header of a differential-expression table (${examples(header)})${numbers.length > 0 ? ` and ${numbers.length} numbers (e.g. ${examples(numbers)})` : ""}`;
  if (numbers.length > 0)
    return `${numbers.length} number${numbers.length === 1 ? "" : "s"} (e.g. ${examples(numbers)})`;
  return null;
}

/** What makes a degs field that is not JSON look like a table, or null. */
export function tableLikeText(raw: string): string | null {
  const lines = raw.split(/\r?\n/).filter((l) => l.trim() !== "");
  if (lines.length < 2 || !/[\t,;]/.test(lines[0]!)) return null;
  const cells = lines[0]!.split(/[\t,;]/).map((c) => c.trim().replace(/^"|"$/g, ""));
  return `${lines.length} lines of delimited text with the header ${examples(cells)}`;
}

/** The advice of every table refusal. */
export const TABLE_ADVICE =
  "degs takes gene symbols or Ensembl gene ids as a JSON array; select the DEGs from the table first " +
  "(for example `causeway submit --degs-table FILE --padj 0.05 --lfc 1`)";
