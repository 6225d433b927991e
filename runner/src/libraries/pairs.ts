/**
 * Protein–protein interaction layers (runner/docs/model-v4.md, "Coverage"): a file of
 * undirected binary interactions, one pair per line, two tab-separated identifiers (approved
 * symbols, aliases or Ensembl gene ids), as HuRI publishes them; optionally gzipped, with or
 * without a header line. As an evidence layer each protein is a "regulator" whose one set is its
 * interaction partners, so a PPI layer is stored, checksummed and decoded exactly like a gene-set
 * library. The operator supplies the file; the product never bundles it.
 */
import { basename } from "node:path";
import { gunzipSync } from "node:zlib";
import { ENSEMBL_GENE_RE } from "../symbols/gene-lookup.ts";
import type { SymbolTable } from "../symbols/index.ts";
import { GmtFormatError, type EvidenceLayer } from "./gmt.ts";

/** A pair file's layer name: its file name without `.tsv`, `.txt` or `.gz`. */
export const pairsLayerName = (path: string): string => basename(path).replace(/\.(tsv|txt)(\.gz)?$/, "");

const isGzip = (buf: Uint8Array): boolean => buf.length >= 2 && buf[0] === 0x1f && buf[1] === 0x8b;

/**
 * Parses a pair file into a `ppi` layer. Identifiers the symbol table cannot resolve, and
 * self-interactions, are dropped (a header line resolves to nothing and goes the same way).
 * Throws GmtFormatError when no line holds two tab-separated identifiers.
 */
export function parsePairs(buf: Uint8Array, name: string, symbols: SymbolTable): EvidenceLayer {
  const text = (isGzip(buf) ? gunzipSync(buf) : Buffer.from(buf)).toString("utf8");
  const resolved = new Map<string, string | null>();
  const resolve = (id: string): string | null => {
    let s = resolved.get(id);
    if (s === undefined) {
      s = ENSEMBL_GENE_RE.test(id) ? symbols.resolveEnsembl(id) : symbols.resolve(id);
      resolved.set(id, s);
    }
    return s;
  };
  const partners = new Map<string, Set<string>>();
  const link = (a: string, b: string): void => {
    let set = partners.get(a);
    if (!set) partners.set(a, (set = new Set()));
    set.add(b);
  };
  let lines = 0;
  for (const line of text.split(/\r?\n/)) {
    const cells = line.split("\t");
    if (cells.length < 2 || cells[0]!.trim() === "" || cells[1]!.trim() === "") continue;
    lines++;
    const a = resolve(cells[0]!.trim());
    const b = resolve(cells[1]!.trim());
    if (a === null || b === null || a === b) continue;
    link(a, b);
    link(b, a);
  }
  if (lines === 0) throw new GmtFormatError(`interaction file ${name}: no line of two tab-separated genes`);
  const proteins = [...partners.keys()].sort();
  const geneIndex = new Map(proteins.map((p, i) => [p, i]));
  const sets = new Map<string, Int32Array[]>(
    proteins.map((p) => [p, [Int32Array.from(partners.get(p)!, (q) => geneIndex.get(q)!).sort()]]),
  );
  return { name, kind: "ppi", genes: proteins, sets };
}
