export { SymbolTable, HGNC_FILES, HgncFormatError, type HgncBuffers } from "./symbol-table.ts";
export { OrthologueTable, ORTHOLOGUE_FILE } from "./orthologues.ts";
export {
  speciesResolver,
  looksLikeMouse,
  MOUSE_STYLE_RE,
  NoOrthologueTable,
  type IdentifierResolver,
} from "./species.ts";
export { GeneLookup, ENSEMBL_GENE_RE, type ResolvedGene } from "./gene-lookup.ts";
