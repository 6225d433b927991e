/**
 * HGNC symbol normalization (model.md §3.4 rules 2, 3 and 6): approved symbol, else an
 * unambiguous previous symbol or alias, compared case-insensitively. The snapshot (NCBI Gene
 * via org.Hs.eg.db) does not separate previous symbols from aliases, so both share one rule.
 * An Ensembl id listed under several genes resolves to the one `preferredGene` picks.
 */
import { readFile } from "node:fs/promises";
import { join } from "node:path";
import { gunzipSync } from "node:zlib";
import { preferredGene } from "./preferred-gene.ts";
import { StringIndex } from "./string-index.ts";

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

/**
 * Iterates the rows of a TSV as arrays of the requested columns, by header name: the `wanted`
 * ones, then the `optional` ones ("" when the file lacks them).
 */
function* columns(
  text: string,
  file: string,
  wanted: readonly string[],
  optional: readonly string[] = [],
): Generator<string[]> {
  const lines = text.split(/\r?\n/);
  const header = (lines[0] ?? "").split("\t");
  const idx = [
    ...wanted.map((name) => {
      const i = header.indexOf(name);
      if (i < 0) throw new HgncFormatError(`${file}: missing column "${name}"`);
      return i;
    }),
    ...optional.map((name) => header.indexOf(name)),
  ];
  for (let l = 1; l < lines.length; l++) {
    const line = lines[l]!;
    if (line === "") continue;
    const cells = line.split("\t");
    yield idx.map((i) => (i < 0 ? "" : (cells[i] ?? "").trim()));
  }
}

/** Marks a key that names more than one approved symbol. */
const AMBIGUOUS = -1;

/**
 * Records that `key` names the approved symbol with index `symbol`: a key seen with two
 * different symbols becomes AMBIGUOUS, and `clashes` keeps what it names (a few thousand keys
 * of ~190k, so the common case stays one number). Indices instead of names keep it small.
 */
function addTo(map: Map<string, number>, key: string, symbol: number, clashes: Map<string, number[]>): void {
  const seen = map.get(key);
  if (seen === undefined) map.set(key, symbol);
  else if (seen === AMBIGUOUS) {
    const list = clashes.get(key)!;
    if (!list.includes(symbol)) list.push(symbol);
  } else if (seen !== symbol) {
    map.set(key, AMBIGUOUS);
    clashes.set(key, [seen, symbol]);
  }
}

/**
 * Approved symbols with their alias and Ensembl maps; immutable once built. It lives as long
 * as a warm runner or the API (~190k keys), so its maps are compact StringIndexes.
 */
export class SymbolTable {
  /** Approved symbol → its index; entry i is the symbol with index i (official case). */
  private readonly approved: StringIndex;
  /** Lower-cased symbol → the approved symbol with that spelling (AMBIGUOUS on a case clash). */
  private readonly approvedLower: StringIndex;
  /** Lower-cased alias/previous symbol → the approved symbol it names, or AMBIGUOUS. */
  private readonly aliasLower: StringIndex;
  /** Ensembl gene id without version → the approved symbol (`preferredGene` of several), or AMBIGUOUS. */
  private readonly ensembl: StringIndex;
  /** The approved symbols an AMBIGUOUS alias or Ensembl id names, so a message can list them. */
  private readonly approvedClashes = new Map<string, number[]>();
  private readonly aliasClashes = new Map<string, number[]>();
  private readonly ensemblClashes = new Map<string, number[]>();

  private constructor(buffers: HgncBuffers) {
    const approved = new Map<string, number>();
    const approvedLower = new Map<string, number>();
    const aliasLower = new Map<string, number>();
    const ensembl = new Map<string, number>();
    // Gene types matter only while Ensembl clashes are settled, so they are not kept.
    const types: string[] = [];
    for (const [symbol, type] of columns(
      decode(buffers.geneSymbols),
      HGNC_FILES.geneSymbols,
      ["symbol"],
      ["gene_type"],
    )) {
      if (symbol === "" || approved.has(symbol)) continue;
      addTo(approvedLower, symbol.toLowerCase(), approved.size, this.approvedClashes);
      types.push(type!);
      approved.set(symbol, approved.size);
    }
    for (const [alias, symbol] of columns(decode(buffers.aliasToSymbol), HGNC_FILES.aliasToSymbol, [
      "alias",
      "symbol",
    ])) {
      const index = approved.get(symbol);
      if (alias === "" || index === undefined) continue;
      addTo(aliasLower, alias.toLowerCase(), index, this.aliasClashes);
    }
    for (const [id, symbol] of columns(decode(buffers.ensemblToSymbol), HGNC_FILES.ensemblToSymbol, [
      "ensembl_id",
      "symbol",
    ])) {
      const index = approved.get(symbol);
      if (id === "" || index === undefined) continue;
      addTo(ensembl, id.replace(ENSEMBL_VERSION_RE, "").toUpperCase(), index, this.ensemblClashes);
    }
    const names = [...approved.keys()];
    for (const [id, indices] of this.ensemblClashes) {
      const pick = preferredGene(indices.map((i) => ({ symbol: names[i]!, type: types[i]! })));
      if (pick === null) continue;
      ensembl.set(id, indices[pick]!);
      this.ensemblClashes.delete(id);
    }
    this.approved = StringIndex.from(approved);
    this.approvedLower = StringIndex.from(approvedLower);
    this.aliasLower = StringIndex.from(aliasLower);
    this.ensembl = StringIndex.from(ensembl);
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
    if (approved !== undefined) return this.symbolAt(approved);
    return this.symbolAt(this.aliasLower.get(lower));
  }

  /**
   * The approved symbol of an Ensembl gene id (`ENSG…`, version suffix ignored), or null. An id
   * the snapshot lists under several genes names the one `preferredGene` picks, if any.
   */
  resolveEnsembl(id: string): string | null {
    const key = id.trim().replace(ENSEMBL_VERSION_RE, "").toUpperCase();
    return this.symbolAt(this.ensembl.get(key));
  }

  /**
   * The approved symbols an identifier names when it names several, which `resolve` therefore
   * leaves unresolved (sorted); empty when it names one or none.
   */
  ambiguousSymbols(identifier: string): string[] {
    const id = identifier.trim();
    const lower = id.toLowerCase();
    if (id === "" || this.approved.has(id)) return [];
    // As in `resolve`: a spelling of an approved symbol is never read as an alias.
    if (this.approvedLower.get(lower) !== undefined) return this.namesOf(this.approvedClashes.get(lower));
    return this.namesOf(this.aliasClashes.get(lower));
  }

  /** The approved symbols of an Ensembl gene id left ambiguous (sorted); empty otherwise. */
  ambiguousEnsembl(id: string): string[] {
    return this.namesOf(this.ensemblClashes.get(id.trim().replace(ENSEMBL_VERSION_RE, "").toUpperCase()));
  }

  private namesOf(indices: number[] | undefined): string[] {
    return (indices ?? []).map((i) => this.approved.keyAt(i)).sort();
  }

  private symbolAt(index: number | undefined): string | null {
    return index === undefined || index === AMBIGUOUS ? null : this.approved.keyAt(index);
  }
}
