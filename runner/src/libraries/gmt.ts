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
 * the TF), `kinase` (substrates or interactors of a kinase).
 */
export const LAYER_KINDS = ["tf_binding", "tf_coexpression", "kinase"] as const;
export const LayerKind = z.enum(LAYER_KINDS);
export type LayerKind = z.infer<typeof LayerKind>;

/** One parsed library: per regulator symbol, its sets as gene symbols (HGNC-normalized, deduplicated). */
export interface EvidenceLayer {
  name: string;
  kind: LayerKind;
  sets: ReadonlyMap<string, readonly (readonly string[])[]>;
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
  const sets = new Map<string, string[][]>();
  // A library names the same few thousand genes millions of times: resolve each name once.
  const resolved = new Map<string, string | null>();
  const resolve = (name: string): string | null => {
    let r = resolved.get(name);
    if (r === undefined) resolved.set(name, (r = symbols.resolve(name)));
    return r;
  };
  let lines = 0;
  for (const line of text.split(/\r?\n/)) {
    const cells = line.split("\t");
    if (cells.length < 3 || cells[0]!.trim() === "") continue;
    lines++;
    const regulator = resolve(cells[0]!.trim().split("_")[0]!);
    if (regulator === null) continue;
    const genes = new Set<string>();
    for (const g of cells.slice(2)) {
      const s = resolve(g.trim());
      if (s !== null) genes.add(s);
    }
    if (genes.size === 0) continue;
    let list = sets.get(regulator);
    if (!list) sets.set(regulator, (list = []));
    list.push([...genes]);
  }
  if (lines === 0)
    throw new GmtFormatError(`library ${name}: no gene-set line (name<TAB>description<TAB>genes)`);
  return { name, kind, sets };
}
