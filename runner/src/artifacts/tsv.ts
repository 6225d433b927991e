/**
 * Tab-separated tables as model.md §13 writes them: UTF-8, a header row, `NA` for missing
 * values, `.` as decimal separator, floats with 9 significant digits.
 */
export type Cell = string | number | boolean | null | undefined;

export function formatCell(value: Cell): string {
  if (value === null || value === undefined) return "NA";
  if (typeof value === "boolean") return value ? "TRUE" : "FALSE";
  if (typeof value === "number") {
    if (Number.isNaN(value)) return "NA";
    if (!Number.isFinite(value)) return value > 0 ? "Inf" : "-Inf";
    if (Number.isInteger(value) && Math.abs(value) < 1e15) return String(value);
    return String(Number(value.toPrecision(9)));
  }
  if (/[\t\n\r]/.test(value)) throw new Error("TSV cells cannot contain tabs or newlines");
  return value;
}

/** Serializes rows under the given columns; every row must have every column (null is NA). */
export function toTsv<Row extends Record<string, Cell>>(
  columns: readonly (keyof Row & string)[],
  rows: Iterable<Row>,
): string {
  const lines = [columns.join("\t")];
  for (const row of rows) lines.push(columns.map((c) => formatCell(row[c])).join("\t"));
  return lines.join("\n") + "\n";
}

export interface ParsedTsv {
  columns: string[];
  rows: string[][];
}

/** Splits a TSV into header and raw string cells (no typing: callers validate with zod). */
export function parseTsv(text: string): ParsedTsv {
  const lines = text.split(/\r?\n/);
  while (lines.length > 0 && lines[lines.length - 1] === "") lines.pop();
  const [header, ...body] = lines;
  if (header === undefined) return { columns: [], rows: [] };
  return { columns: header.split("\t"), rows: body.map((line) => line.split("\t")) };
}

/** Parsed rows as objects keyed by column name. */
export function parseTsvRecords(text: string): Record<string, string>[] {
  const { columns, rows } = parseTsv(text);
  return rows.map((cells) => Object.fromEntries(columns.map((c, i) => [c, cells[i] ?? "NA"])));
}

/** Reads a numeric cell: `NA` and empty cells are null. */
export function numberCell(cell: string | undefined): number | null {
  if (cell === undefined || cell === "NA" || cell === "") return null;
  if (cell === "Inf") return Infinity;
  if (cell === "-Inf") return -Infinity;
  const v = Number(cell);
  return Number.isNaN(v) ? null : v;
}

export function booleanCell(cell: string | undefined): boolean | null {
  if (cell === "TRUE" || cell === "true") return true;
  if (cell === "FALSE" || cell === "false") return false;
  return null;
}
