/**
 * Identifier resolution per species: human identifiers go through the HGNC table; mouse symbols
 * go through the one-to-one orthologue table first and then through the HGNC table (the
 * orthologue table may name a human gene by a symbol the snapshot lists as previous).
 */
import type { Species } from "@causeway/contract";
import type { OrthologueTable } from "./orthologues.ts";
import type { SymbolTable } from "./symbol-table.ts";

/** What resolving an identifier needs (a SymbolTable for human genes). */
export interface IdentifierResolver {
  resolve(identifier: string): string | null;
  resolveEnsembl(id: string): string | null;
}

/** Thrown when mouse identifiers are asked for but the model version carries no orthologue table. */
export class NoOrthologueTable extends Error {
  constructor() {
    super("this model version has no mouse–human orthologue table");
    this.name = "NoOrthologueTable";
  }
}

export function speciesResolver(
  symbols: SymbolTable,
  orthologues: OrthologueTable | null,
  species: Species,
): IdentifierResolver {
  if (species === "human") return symbols;
  if (!orthologues) throw new NoOrthologueTable();
  return {
    resolve(identifier) {
      const human = orthologues.humanOf(identifier);
      return human === null ? null : symbols.resolve(human);
    },
    // Mouse Ensembl ids (ENSMUSG…) have no table here; a human Ensembl id is not a mouse gene.
    resolveEnsembl: () => null,
  };
}

/** A symbol spelled the mouse way: capital first letter, then lower case (`Stat1`, `H2-K1` is not). */
export const MOUSE_STYLE_RE = /^[A-Z][a-z][a-z0-9-]*$/;

/**
 * Whether a human-mode identifier list looks like mouse symbols: most of the identifiers are
 * spelled the mouse way and name a mouse gene of the orthologue table.
 */
export function looksLikeMouse(identifiers: readonly string[], orthologues: OrthologueTable | null): boolean {
  if (!orthologues || identifiers.length === 0) return false;
  let mouse = 0;
  let upper = 0;
  for (const raw of identifiers) {
    const id = raw.trim();
    if (MOUSE_STYLE_RE.test(id) && orthologues.humanOf(id) !== null) mouse++;
    else if (/^[A-Z0-9-]+$/.test(id) && /[A-Z]/.test(id)) upper++;
  }
  return mouse >= 10 && mouse > 2 * upper;
}
