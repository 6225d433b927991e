/**
 * Gene identifiers → HGNC symbols (model.md §3.4): the identifier source, resolution,
 * merging of duplicates, the 50 % rule, and the DEG list of split uploads.
 */
import { z } from "zod";
import { JobFailure } from "@causeway/contract";
import { columnAsStrings, type DataFrame } from "../anndata/index.ts";
import type { DegList, SymbolResolver } from "./types.ts";

const ENSEMBL_GENE_RE = /^ENS[A-Z]*G\d{11}(\.\d+)?$/;
const ENSEMBL_TRANSCRIPT_RE = /^ENS[A-Z]*T\d{11}(\.\d+)?$/;
const SYMBOL_COLUMNS = ["gene_symbols", "gene_symbol", "feature_name", "gene_name", "symbol"];

/** Per input gene (var order): its symbol or null, and where identifiers came from. */
export interface GeneMapping {
  symbols: (string | null)[];
  identifiers: string[];
  source: string;
}

function varColumn(frame: DataFrame, names: readonly string[]): string | null {
  for (const wanted of names) {
    for (const name of frame.columns.keys()) if (name.trim().toLowerCase() === wanted) return name;
  }
  return null;
}

/** Resolves every var entry to a symbol following §3.4 rule 1's order of sources. */
export function mapGenes(frame: DataFrame, symbols: SymbolResolver): GeneMapping {
  const names = frame.index;
  const curatedName = varColumn(frame, ["hgnc_symbol"]);
  const curated = curatedName ? columnAsStrings(frame.columns.get(curatedName)!) : null;
  const ensemblShare = names.filter((n) => ENSEMBL_GENE_RE.test(n.trim())).length / Math.max(1, names.length);
  const ensemblNames = ensemblShare >= 0.5;
  const symbolColName = ensemblNames ? varColumn(frame, SYMBOL_COLUMNS) : null;
  const symbolCol = symbolColName ? columnAsStrings(frame.columns.get(symbolColName)!) : null;
  const source = [
    curatedName ? `var["${curatedName}"]` : null,
    ensemblNames ? (symbolColName ? `var["${symbolColName}"]` : null) : "var_names",
    ensemblNames ? "var_names (Ensembl ids)" : null,
  ]
    .filter((s) => s !== null)
    .join(", then ");
  const out: (string | null)[] = [];
  const identifiers: string[] = [];
  for (let g = 0; g < names.length; g++) {
    const name = names[g]!.trim();
    let symbol: string | null = null;
    const c = curated?.[g]?.trim();
    if (c) symbol = symbols.resolve(c);
    if (symbol === null && ensemblNames) {
      const s = symbolCol?.[g]?.trim();
      if (s) symbol = symbols.resolve(s);
      // A stray symbol among Ensembl ids resolves as a symbol rather than being lost.
      if (symbol === null)
        symbol = ENSEMBL_GENE_RE.test(name) ? symbols.resolveEnsembl(name) : symbols.resolve(name);
    } else if (symbol === null) {
      symbol = ENSEMBL_GENE_RE.test(name) ? symbols.resolveEnsembl(name) : symbols.resolve(name);
    }
    out.push(symbol);
    identifiers.push(c || name);
  }
  return { symbols: out, identifiers, source };
}

/** What most unresolved identifiers look like, for the `gene_symbols_unmapped` message. */
export function describeUnresolved(ids: string[]): string {
  const kinds = { transcript: 0, mouseEnsembl: 0, ensembl: 0, mouse: 0, other: 0 };
  for (const id of ids) {
    if (ENSEMBL_TRANSCRIPT_RE.test(id)) kinds.transcript++;
    else if (/^ENSMUSG/i.test(id)) kinds.mouseEnsembl++;
    else if (/^ENS/.test(id)) kinds.ensembl++;
    else if (/^[A-Z][a-z][a-z0-9-]*$/.test(id)) kinds.mouse++;
    else kinds.other++;
  }
  const top = (Object.entries(kinds) as [keyof typeof kinds, number][]).sort((a, b) => b[1] - a[1])[0]![0];
  const examples = ids.slice(0, 3).join(", ");
  switch (top) {
    case "transcript":
      return `most unmapped identifiers are Ensembl transcript ids (e.g. ${examples}); aggregate to genes first`;
    case "mouseEnsembl":
      return `most unmapped identifiers are mouse Ensembl ids (e.g. ${examples}); for mouse data give mouse gene symbols (as var_names or in a var column gene_symbols) and set species=mouse`;
    case "ensembl":
      return `most unmapped identifiers are Ensembl ids that are not human genes (e.g. ${examples})`;
    case "mouse":
      return `most unmapped identifiers look like mouse gene symbols (e.g. ${examples}); for mouse data set species=mouse (symbols are mapped to human through one-to-one orthologues)`;
    default:
      return `unmapped identifiers look like ${examples}`;
  }
}

/**
 * The 50 % rule over genes with a non-zero total: `gene_symbols_unmapped` when fewer than half
 * of them resolve.
 */
export function checkMappedShare(mapping: GeneMapping, geneTotals: Float64Array, fileLabel: string): void {
  let expressed = 0;
  let mapped = 0;
  const unresolved: string[] = [];
  for (let g = 0; g < mapping.symbols.length; g++) {
    if (!(geneTotals[g]! > 0)) continue;
    expressed++;
    if (mapping.symbols[g] !== null) mapped++;
    else unresolved.push(mapping.identifiers[g]!);
  }
  if (expressed === 0 || mapped / expressed < 0.5) {
    const pct = expressed === 0 ? 0 : Math.round((100 * mapped) / expressed);
    throw new JobFailure(
      "gene_symbols_unmapped",
      `Only ${pct}% of the genes with counts in the ${fileLabel} could be mapped to human HGNC symbols; ${describeUnresolved(unresolved)}. ` +
        "Use human gene symbols or Ensembl gene ids as var_names (or a var column hgnc_symbol).",
    );
  }
}

const DegArray = z.array(z.string().max(256)).min(1).max(20_000);

/**
 * Normalizes a split upload's DEG list (§3.4 rule 6). Accepts the JSON text or the parsed array;
 * a malformed list (the API should have refused it) fails as `internal_error`.
 */
export function normalizeDegs(degs: string | unknown[], symbols: SymbolResolver): DegList {
  let parsed: unknown = degs;
  if (typeof degs === "string") {
    try {
      parsed = JSON.parse(degs);
    } catch {
      parsed = null;
    }
  }
  const result = DegArray.safeParse(parsed);
  if (!result.success) {
    throw new JobFailure(
      "internal_error",
      "The DEG list is not a JSON array of 1 to 20,000 gene symbols.",
      result.error.message,
    );
  }
  const resolved = new Set<string>();
  const unresolved = new Map<string, string>();
  const ambiguous = new Map<string, { input: string; symbols: string[] }>();
  for (const raw of result.data) {
    const id = raw.trim();
    if (id === "") continue;
    // Ensembl gene ids resolve in DEG lists as they do in the matrix's var_names.
    const ensembl = ENSEMBL_GENE_RE.test(id);
    const symbol = ensembl ? symbols.resolveEnsembl(id) : symbols.resolve(id);
    if (symbol !== null) resolved.add(symbol);
    else if (!unresolved.has(id.toLowerCase()) && !ambiguous.has(id.toLowerCase())) {
      const several = (ensembl ? symbols.ambiguousEnsembl?.(id) : symbols.ambiguousSymbols?.(id)) ?? [];
      if (several.length > 1) ambiguous.set(id.toLowerCase(), { input: id, symbols: several });
      else unresolved.set(id.toLowerCase(), id);
    }
  }
  return {
    symbols: [...resolved],
    unresolved: [...unresolved.values()],
    ambiguous: [...ambiguous.values()],
    nDegs: resolved.size + unresolved.size + ambiguous.size,
  };
}
