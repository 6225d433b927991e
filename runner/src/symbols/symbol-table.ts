/**
 * HGNC symbol normalization (model.md §3.4 rules 2, 3 and 6): approved symbol, else an
 * unambiguous previous symbol or alias, compared case-insensitively. The snapshot (NCBI Gene
 * via org.Hs.eg.db) does not separate previous symbols from aliases, so both share one rule.
 */
import { readFile } from "node:fs/promises";
import { join } from "node:path";
import { gunzipSync } from "node:zlib";

/** File names of the HGNC snapshot inside a directory (shared/data/hgnc layout). */
export const HGNC_FILES = {
  geneSymbols: "gene_symbols.tsv.gz",
  aliasToSymbol: "alias_to_symbol.tsv.gz",
  ensemblToSymbol: "ensembl_to_symbol.tsv.gz",
} as const;

/** Raw contents (gzip-compressed or plain) of the three snapshot files. */
export interface HgncBuffers {
  geneSymbols: Buffer;
  aliasToSymbol: Buffer;
  ensemblToSymbol: Buffer;
}

/** Error for a snapshot file that lacks a required column. */
export class HgncFormatError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "HgncFormatError";
  }
}

const ENSEMBL_VERSION_RE = /\.\d+$/;

function decode(buf: Buffer): string {
  const gz = buf.length >= 2 && buf[0] === 0x1f && buf[1] === 0x8b;
  return (gz ? gunzipSync(buf) : buf).toString("utf8");
}

/** Iterates the rows of a TSV as arrays of the requested columns, by header name. */
function* columns(text: string, file: string, wanted: readonly string[]): Generator<string[]> {
  const lines = text.split(/\r?\n/);
  const header = (lines[0] ?? "").split("\t");
  const idx = wanted.map((name) => {
    const i = header.indexOf(name);
    if (i < 0) throw new HgncFormatError(`${file}: missing column "${name}"`);
    return i;
  });
  for (let l = 1; l < lines.length; l++) {
    const line = lines[l]!;
    if (line === "") continue;
    const cells = line.split("\t");
    yield idx.map((i) => (cells[i] ?? "").trim());
  }
}

/** Adds `value` to the set stored under `key`. */
function addTo(map: Map<string, Set<string>>, key: string, value: string): void {
  let set = map.get(key);
  if (!set) map.set(key, (set = new Set()));
  set.add(value);
}

/** The only element of a one-element set, else null. */
function single(set: Set<string> | undefined): string | null {
  if (!set || set.size !== 1) return null;
  return set.values().next().value ?? null;
}

/** Approved symbols with their alias and Ensembl maps; immutable once built. */
export class SymbolTable {
  /** Approved symbols in their official case. */
  private readonly approved: Set<string>;
  /** Lower-cased symbol → approved symbols with that spelling (one, except for case clashes). */
  private readonly approvedLower: Map<string, Set<string>>;
  /** Lower-cased alias/previous symbol → approved symbols it names. */
  private readonly aliasLower: Map<string, Set<string>>;
  /** Ensembl gene id without version → approved symbols. */
  private readonly ensembl: Map<string, Set<string>>;

  private constructor(buffers: HgncBuffers) {
    this.approved = new Set();
    this.approvedLower = new Map();
    for (const [symbol] of columns(decode(buffers.geneSymbols), HGNC_FILES.geneSymbols, ["symbol"])) {
      if (symbol === "") continue;
      this.approved.add(symbol);
      addTo(this.approvedLower, symbol.toLowerCase(), symbol);
    }
    this.aliasLower = new Map();
    for (const [alias, symbol] of columns(decode(buffers.aliasToSymbol), HGNC_FILES.aliasToSymbol, [
      "alias",
      "symbol",
    ])) {
      if (alias === "" || !this.approved.has(symbol)) continue;
      addTo(this.aliasLower, alias.toLowerCase(), symbol);
    }
    this.ensembl = new Map();
    for (const [id, symbol] of columns(decode(buffers.ensemblToSymbol), HGNC_FILES.ensemblToSymbol, [
      "ensembl_id",
      "symbol",
    ])) {
      if (id === "" || !this.approved.has(symbol)) continue;
      addTo(this.ensembl, id.replace(ENSEMBL_VERSION_RE, "").toUpperCase(), symbol);
    }
  }

  /** Loads the snapshot files from a directory laid out like shared/data/hgnc. */
  static async load(dir: string): Promise<SymbolTable> {
    const [geneSymbols, aliasToSymbol, ensemblToSymbol] = await Promise.all([
      readFile(join(dir, HGNC_FILES.geneSymbols)),
      readFile(join(dir, HGNC_FILES.aliasToSymbol)),
      readFile(join(dir, HGNC_FILES.ensemblToSymbol)),
    ]);
    return new SymbolTable({ geneSymbols, aliasToSymbol, ensemblToSymbol });
  }

  /** Builds the table from file contents (gzip or plain), e.g. read from an object store. */
  static fromBuffers(buffers: HgncBuffers): SymbolTable {
    return new SymbolTable(buffers);
  }

  /** Number of distinct approved symbols. */
  get size(): number {
    return this.approved.size;
  }

  /** Whether `symbol` is an approved symbol, exactly as spelled (official case). */
  isApproved(symbol: string): boolean {
    return this.approved.has(symbol);
  }

  /**
   * The approved symbol an identifier names, or null: approved symbol → unambiguous previous
   * symbol or alias. Case-insensitive after trimming; an exact-case approved match wins over a
   * case-insensitive one so that two approved symbols differing only in case stay apart.
   */
  resolve(identifier: string): string | null {
    const id = identifier.trim();
    if (id === "") return null;
    if (this.approved.has(id)) return id;
    const lower = id.toLowerCase();
    const approved = this.approvedLower.get(lower);
    // An identifier spelled like an approved symbol resolves only by the approved rule.
    if (approved) return single(approved);
    return single(this.aliasLower.get(lower));
  }

  /** The approved symbol of an Ensembl gene id (`ENSG…`, version suffix ignored), or null. */
  resolveEnsembl(id: string): string | null {
    const key = id.trim().replace(ENSEMBL_VERSION_RE, "").toUpperCase();
    return single(this.ensembl.get(key));
  }
}
