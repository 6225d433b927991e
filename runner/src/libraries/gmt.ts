/**
 * Evidence layers of a model version (runner/docs/model-v3.md): gene-set libraries in GMT form
 * (`name<TAB>description<TAB>gene<TAB>gene...`, optionally gzipped), as ChEA3 and KEA3 ship
 * them. A set's regulator is the part of its name before the first `_` (ENCODE and literature
 * sets name one experiment per set: `STAT1_HELAS3_HG19`). The operator supplies the files; the
 * product never bundles them.
 */
import { gunzipSync } from "node:zlib";
import { z } from "zod";
import type { SymbolTable } from "../symbols/index.ts";

/**
 * What a layer's sets say, which decides the group its evidence is combined in:
 * `tf_binding` (ChIP-seq: genes bound by the TF), `tf_coexpression` (genes co-expressed with
 * the TF), `kinase` (substrates or interactors of a kinase), `ppi` (binary physical interaction
 * partners, read from a pair file: pairs.ts). Model v3 reads the first three; v4 reads all four,
 * and every regulator of a layer is one of its candidates.
 */
export const LAYER_KINDS = ["tf_binding", "tf_coexpression", "kinase", "ppi"] as const;
/** The kinds whose files are gene-set libraries (GMT): the regulator's targets. */
export const GENE_SET_KINDS = ["tf_binding", "tf_coexpression", "kinase"] as const;
export type GeneSetKind = (typeof GENE_SET_KINDS)[number];
export const LayerKind = z.enum(LAYER_KINDS);
export type LayerKind = z.infer<typeof LayerKind>;

/**
 * One parsed library. Its sets hold indices into `genes` rather than the symbols themselves:
 * ChEA3 and KEA3 name ~3.9 million set members, which as arrays of string references took
 * ~32 MB of a runner's heap for the life of the process; as Int32Arrays (views of one buffer
 * when decoded) they take half that, outside the heap, and scoring maps them to model indices
 * through one table per layer instead of a second copy.
 */
export interface EvidenceLayer {
  name: string;
  kind: LayerKind;
  /** The genes the sets name (HGNC-normalized symbols); several layers may share one array. */
  genes: readonly string[];
  /** Per regulator symbol, its sets as indices into `genes` (each set deduplicated). */
  sets: ReadonlyMap<string, readonly Int32Array[]>;
}

/** The sets of a layer as symbols (encoding, tests, and anything that reads a layer by name). */
export function setsAsSymbols(layer: EvidenceLayer): Map<string, string[][]> {
  return new Map(
    [...layer.sets].map(([regulator, list]) => [
      regulator,
      list.map((set) => Array.from(set, (g) => layer.genes[g]!)),
    ]),
  );
}

/** A GMT file that is not one (no tab-separated set line). */
export class GmtFormatError extends Error {
  readonly code = "invalid_gmt";
  constructor(message: string) {
    super(message);
    this.name = "GmtFormatError";
  }
}

const isGzip = (buf: Uint8Array): boolean => buf.length >= 2 && buf[0] === 0x1f && buf[1] === 0x8b;

/**
 * Parses a GMT library. Regulators and genes go through the model's symbol table (approved
 * symbol, else an unambiguous alias); names it cannot resolve are dropped, as the DEG list's
 * are. Throws GmtFormatError when no line has a name and at least one gene.
 */
export function parseGmt(
  buf: Uint8Array,
  name: string,
  kind: LayerKind,
  symbols: SymbolTable,
): EvidenceLayer {
  const text = (isGzip(buf) ? gunzipSync(buf) : Buffer.from(buf)).toString("utf8");
  const sets = new Map<string, Int32Array[]>();
  const genes: string[] = [];
  // A library names the same few thousand genes millions of times: resolve each name once, to
  // its index in `genes` (−1: not a gene of the symbol table).
  const indexOf = new Map<string, number>();
  const geneIndex = new Map<string, number>();
  const resolve = (name: string): number => {
    let i = indexOf.get(name);
    if (i === undefined) {
      const symbol = symbols.resolve(name);
      i = symbol === null ? -1 : (geneIndex.get(symbol) ?? -1);
      if (symbol !== null && i < 0) geneIndex.set(symbol, (i = genes.push(symbol) - 1));
      indexOf.set(name, i);
    }
    return i;
  };
  let lines = 0;
  for (const line of text.split(/\r?\n/)) {
    const cells = line.split("\t");
    if (cells.length < 3 || cells[0]!.trim() === "") continue;
    lines++;
    const regulator = symbols.resolve(cells[0]!.trim().split("_")[0]!);
    if (regulator === null) continue;
    const members = new Set<number>();
    for (const g of cells.slice(2)) {
      const i = resolve(g.trim());
      if (i >= 0) members.add(i);
    }
    if (members.size === 0) continue;
    let list = sets.get(regulator);
    if (!list) sets.set(regulator, (list = []));
    list.push(Int32Array.from(members));
  }
  if (lines === 0)
    throw new GmtFormatError(`library ${name}: no gene-set line (name<TAB>description<TAB>genes)`);
  return { name, kind, genes, sets };
}
