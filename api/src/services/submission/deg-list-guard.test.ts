import { describe, expect, it } from "vitest";
import { tableLikeEntries, tableLikeText } from "./deg-list-guard.ts";

describe("a DEG list that is really a table", () => {
  it("accepts symbols and Ensembl ids", () => {
    expect(tableLikeEntries(["IFIT1", "MX1", "ENSG00000169429.12", "C12orf4", "HLA-DRB1"])).toBeNull();
    // T (TBXT's previous symbol) shares its name with limma's t column.
    expect(tableLikeEntries(["T", "SOX2", "NANOG"])).toBeNull();
  });

  it("knows the columns of scanpy's and Seurat's tables too", () => {
    expect(tableLikeEntries(["names", "scores", "logfoldchanges", "pvals_adj", "IFIT1"])).toMatch(/header/);
    expect(tableLikeEntries(["p_val", "avg_log2FC", "pct.1", "pct.2", "p_val_adj", "ISG15"])).toMatch(
      /header/,
    );
  });

  it("names the header, the numbers and the separators it saw", () => {
    expect(tableLikeEntries(["baseMean", "log2FoldChange", "IFIT1", "512.3"])).toMatch(
      /header .*"baseMean".* and 1 numbers? \(e\.g\. "512\.3"\)/,
    );
    expect(tableLikeEntries(["IFIT1", "4.2e-10", "NA"])).toBe('2 numbers (e.g. "4.2e-10", "NA")');
    expect(tableLikeEntries(["IFIT1,4.2"])).toMatch(/tabs, commas or semicolons/);
    // A stray "gene" header word alone is not a table.
    expect(tableLikeEntries(["gene", "IFIT1"])).toBeNull();
  });

  it("recognises delimited text with a header line", () => {
    expect(tableLikeText("gene\tlogFC\tFDR\nIFIT1\t4\t1e-9\n")).toMatch(/2 lines of delimited text/);
    expect(tableLikeText("IFIT1,MX1")).toBeNull();
  });
});
