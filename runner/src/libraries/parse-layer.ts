/** One evidence layer file, parsed by its kind: a pair file for `ppi`, a GMT library otherwise. */
import type { SymbolTable } from "../symbols/index.ts";
import { parseGmt, type EvidenceLayer, type LayerKind } from "./gmt.ts";
import { parsePairs } from "./pairs.ts";

export function parseLayer(
  buf: Uint8Array,
  name: string,
  kind: LayerKind,
  symbols: SymbolTable,
): EvidenceLayer {
  return kind === "ppi" ? parsePairs(buf, name, symbols) : parseGmt(buf, name, kind, symbols);
}
