export { SymbolTable, HGNC_FILES, HgncFormatError, type HgncBuffers } from "./symbol-table.ts";
