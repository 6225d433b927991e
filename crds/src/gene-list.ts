/**
 * A gene list as people write one (the split upload's DEGs, the runner's `--degs`): a JSON array,
 * a signed list {"up": [...], "down": [...]}, or plain text with one gene per line or separated by
 * commas, semicolons or tabs, as R's `writeLines`, `write.csv` and spreadsheets write it. The
 * command-line client, the web app and the runner read DEG files through this one reader.
 */

/** First words of a plain-text list that are a column header, not a gene ("x" is R's write.csv name for a vector). */
const HEADER_WORDS = new Set([
  "x",
  "gene",
  "genes",
  "symbol",
  "symbols",
  "gene_symbol",
  "hgnc_symbol",
  "gene_name",
  "gene_id",
  "ensembl_gene_id",
  "id",
  "name",
  "names",
]);

export interface GeneList {
  /** The genes in file order, without duplicates. */
  genes: string[];
  /** A signed list's halves (a gene may sit in both); null when the list carries no signs. */
  signed: { up: string[]; down: string[] } | null;
  /** The header word a plain-text list began with and that was left out; null when none. */
  header: string | null;
}

/** A file that is JSON but not a gene list: the reader cannot guess what it holds. */
export class GeneListFormatError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "GeneListFormatError";
  }
}

export function parseGeneList(text: string): GeneList {
  const t = text.replace(/^\uFEFF/, "").trim();
  const json = t.startsWith("[") || t.startsWith("{") ? parseJson(t) : undefined;
  if (json !== undefined) return fromJson(json);
  return fromPlainText(t);
}

function parseJson(t: string): unknown {
  try {
    return JSON.parse(t) as unknown;
  } catch {
    // `[1] "STAT1" …` (R's print) or a bracketed note: read it as plain text.
    return undefined;
  }
}

const strings = (v: unknown): string[] | null =>
  Array.isArray(v) && v.every((g) => typeof g === "string") ? v.map((g) => g.trim()).filter(Boolean) : null;

function fromJson(v: unknown): GeneList {
  const list = strings(v);
  if (list) return { genes: unique(list), signed: null, header: null };
  if (v !== null && typeof v === "object" && !Array.isArray(v)) {
    const o = v as Record<string, unknown>;
    const up = strings(o.up ?? []);
    const down = strings(o.down ?? []);
    if (up && down && ("up" in o || "down" in o))
      return { genes: unique([...up, ...down]), signed: { up, down }, header: null };
  }
  throw new GeneListFormatError(
    'expected a JSON array of gene symbols, or {"up": [...], "down": [...]}, or one gene per line',
  );
}

function fromPlainText(t: string): GeneList {
  const words = t
    .split(/[\s,;]+/)
    .map((w) => w.replace(/^["']+|["']+$/g, ""))
    // R's print() numbers its lines: `[1] "STAT1" "STAT2"`.
    .filter((w) => w !== "" && !/^\[\d+\]$/.test(w));
  const first = words[0];
  const header =
    first !== undefined && words.length > 1 && HEADER_WORDS.has(first.toLowerCase()) ? first : null;
  return { genes: unique(header === null ? words : words.slice(1)), signed: null, header };
}

const unique = (xs: readonly string[]): string[] => [...new Set(xs)];
