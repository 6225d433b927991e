import { readFile } from "node:fs/promises";
import { join } from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { HGNC_DIR } from "../../../test/shared-data.ts";
import { HGNC_FILES, SymbolTable } from "./symbol-table.ts";

describe("SymbolTable on the shared HGNC snapshot", () => {
  let table: SymbolTable;
  beforeAll(async () => {
    table = await SymbolTable.load(HGNC_DIR);
  });

  it.each<[string, string | null, string]>([
    ["STAT1", "STAT1", "approved"],
    ["  stat1 ", "STAT1", "trimmed, case-insensitive"],
    ["IL8", "CXCL8", "previous symbol"],
    ["il8", "CXCL8", "previous symbol, lower case"],
    ["C12orf4", "C12orf4", "official mixed case kept"],
    ["C12ORF4", "C12orf4", "upper-cased input maps back to the official case"],
    ["A2M", "A2M", "an alias of IGHA2 that is itself approved stays A2M"],
    ["10q23del", null, "alias of BMPR1A and PTEN is ambiguous"],
    ["NOT_A_GENE_XYZ", null, "unknown"],
    ["", null, "empty"],
  ])("resolve(%j) = %j (%s)", (input, expected) => {
    expect(table.resolve(input)).toBe(expected);
  });

  it.each<[string, string | null]>([
    ["ENSG00000169429", "CXCL8"],
    ["ENSG00000169429.12", "CXCL8"],
    ["ENSG00000047621", "C12orf4"],
    ["ENSG99999999999", null],
  ])("resolveEnsembl(%j) = %j", (id, expected) => {
    expect(table.resolveEnsembl(id)).toBe(expected);
  });

  it("names the symbols of an identifier that names several, instead of resolving it", () => {
    // ENSG00000099977 is listed under DDT and DDTL, two protein-coding paralogues.
    expect(table.resolveEnsembl("ENSG00000099977.14")).toBeNull();
    expect(table.ambiguousEnsembl("ENSG00000099977.14")).toEqual(["DDT", "DDTL"]);
    expect(table.ambiguousSymbols("10q23del")).toEqual(["BMPR1A", "PTEN"]);
    expect(table.ambiguousEnsembl("ENSG00000169429")).toEqual([]);
    expect(table.ambiguousSymbols("STAT1")).toEqual([]);
    expect(table.ambiguousSymbols("NOT_A_GENE_XYZ")).toEqual([]);
  });

  it.each<[string, string, string]>([
    ["ENSG00000143384", "MCL1", "beside the antisense ncRNA ADAMTSL4-AS1"],
    ["ENSG00000128383", "APOBEC3A", "beside NCBI's hybrid record APOBEC3A_B"],
    ["ENSG00000160201", "U2AF1", "beside the provisional protein-coding LOC102724594"],
    ["ENSG00000004866", "ST7", "beside its overlapping transcript ST7-OT3"],
    ["ENSG00000109927", "TECTA", "beside the readthrough TBCEL-TECTA"],
  ])("resolves the Ensembl id %s, listed under several genes, to %s (%s)", (id, symbol) => {
    expect(table.resolveEnsembl(id)).toBe(symbol);
    expect(table.ambiguousEnsembl(id)).toEqual([]);
  });

  it("tells approved symbols apart by exact spelling", () => {
    expect(table.isApproved("C12orf4")).toBe(true);
    expect(table.isApproved("C12ORF4")).toBe(false);
    expect(table.isApproved("IL8")).toBe(false);
    expect(table.size).toBeGreaterThan(70_000);
  });

  it("builds the same table from buffers", async () => {
    const read = (name: string) => readFile(join(HGNC_DIR, name));
    const fromBuffers = SymbolTable.fromBuffers({
      geneSymbols: await read(HGNC_FILES.geneSymbols),
      aliasToSymbol: await read(HGNC_FILES.aliasToSymbol),
      ensemblToSymbol: await read(HGNC_FILES.ensemblToSymbol),
    });
    expect(fromBuffers.size).toBe(table.size);
    expect(fromBuffers.resolve("IL8")).toBe("CXCL8");
  });

  it("settles an Ensembl clash by gene type when the symbol table has one", () => {
    const t = SymbolTable.fromBuffers({
      geneSymbols: Buffer.from(
        "symbol\tgene_type\nAAA\tprotein-coding\nAAA-AS1\tncRNA\nBBB\tprotein-coding\n",
      ),
      aliasToSymbol: Buffer.from("alias\tsymbol\n"),
      ensemblToSymbol: Buffer.from(
        "ensembl_id\tsymbol\nENSG00000000001\tAAA\nENSG00000000001\tAAA-AS1\nENSG00000000002\tAAA\nENSG00000000002\tBBB\n",
      ),
    });
    expect(t.resolveEnsembl("ENSG00000000001")).toBe("AAA");
    expect(t.resolveEnsembl("ENSG00000000002")).toBeNull();
    expect(t.ambiguousEnsembl("ENSG00000000002")).toEqual(["AAA", "BBB"]);
  });

  it("accepts plain-text buffers", () => {
    const t = SymbolTable.fromBuffers({
      geneSymbols: Buffer.from("symbol\tentrez_id\nAAA\t1\nBBB\t2\n"),
      aliasToSymbol: Buffer.from("alias\tsymbol\nOLD\tAAA\nDUP\tAAA\nDUP\tBBB\n"),
      ensemblToSymbol: Buffer.from(
        "ensembl_id\tsymbol\nENSG00000000001\tBBB\nENSG00000000002\tAAA\nENSG00000000002\tBBB\nENSG00000000002\tCCC\n",
      ),
    });
    expect(t.ambiguousEnsembl("ENSG00000000002")).toEqual(["AAA", "BBB"]);
    expect(t.ambiguousSymbols("dup")).toEqual(["AAA", "BBB"]);
    expect([t.resolve("old"), t.resolve("DUP"), t.resolveEnsembl("ENSG00000000001.3")]).toEqual([
      "AAA",
      null,
      "BBB",
    ]);
  });
});
