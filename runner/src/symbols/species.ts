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

/** An Ensembl gene id and its species prefix: "" for human (`ENSG…`), `MUS` for mouse (`ENSMUSG…`). */
const ENSEMBL_SPECIES_RE = /^ENS([A-Z]*)G\d{11}(\.\d+)?$/i;

/**
 * Whether a human-mode identifier list looks like mouse data: most identifiers are mouse
 * Ensembl ids (`ENSMUSG…`, which need no table) or symbols spelled the mouse way that name a
 * mouse gene of the orthologue table.
 */
export function looksLikeMouse(identifiers: readonly string[], orthologues: OrthologueTable | null): boolean {
  let mouse = 0;
  let human = 0;
  for (const raw of identifiers) {
    const id = raw.trim();
    const ensembl = ENSEMBL_SPECIES_RE.exec(id);
    if (ensembl) {
      // Other species' ids (ENSRNOG…, ENSDARG…) speak for neither.
      const prefix = ensembl[1]!.toUpperCase();
      if (prefix === "MUS") mouse++;
      else if (prefix === "") human++;
    } else if (MOUSE_STYLE_RE.test(id) && (orthologues?.humanOf(id) ?? null) !== null) mouse++;
    else if (/^[A-Z0-9-]+$/.test(id) && /[A-Z]/.test(id)) human++;
  }
  return mouse >= 10 && mouse > 2 * human;
}
