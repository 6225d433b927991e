/**
 * Entity ids name one node of the interactome: `SYMBOL|PROTEIN` or `SYMBOL|RNA` (model.md §2).
 * The type suffix is always upper-case; symbols never contain `|` or `>`.
 */
export type EntityType = "PROTEIN" | "RNA";

export interface EntityId {
  symbol: string;
  type: EntityType;
}

const ENTITY_RE = /^([^|>\s]+)\|(PROTEIN|RNA)$/i;

/** Parses `STAT1|PROTEIN` (suffix case-insensitive); returns null for anything else. */
export function parseEntityId(id: string): EntityId | null {
  const m = ENTITY_RE.exec(id.trim());
  if (!m) return null;
  return { symbol: m[1]!, type: m[2]!.toUpperCase() as EntityType };
}

export function formatEntityId(symbol: string, type: EntityType): string {
  return `${symbol}|${type}`;
}

export const proteinId = (symbol: string): string => formatEntityId(symbol, "PROTEIN");
export const rnaId = (symbol: string): string => formatEntityId(symbol, "RNA");

/** The symbol part of an entity id, or the input itself when it carries no suffix. */
export function symbolOf(id: string): string {
  const parsed = parseEntityId(id);
  return parsed ? parsed.symbol : id;
}
