import { describe, expect, it } from "vitest";
import { excelDateSymbol, pastedDeTable } from "./gene-list.ts";

describe("a DE table pasted as a DEG list", () => {
  it("is recognised by its header of DE statistics", () => {
    expect(
      pastedDeTable("gene\tlog2FoldChange\tpadj\nSTAT1\t2.3\t0.001\nIRF1\t1.9\t0.01\nMX1\t-0.2\t0.9"),
    ).toEqual({
      columns: ["gene", "log2FoldChange", "padj"],
    });
    expect(pastedDeTable('"","baseMean","log2FoldChange"\n"STAT1",12.1,2.3\n"IRF1",8,1.9')).not.toBeNull();
  });

  it("is recognised by its numbers without a known header", () => {
    expect(pastedDeTable("STAT1,2.3,0.001\nIRF1,1.9,0.01\nMX1,-0.2,NA")).not.toBeNull();
    expect(pastedDeTable("STAT1 2.3e-4\nIRF1 1.9")).not.toBeNull();
  });

  it("leaves gene lists alone: one per line, separated by commas, JSON, or R's print", () => {
    expect(pastedDeTable("STAT1\nIRF1\nMX1")).toBeNull();
    expect(pastedDeTable("gene\nSTAT1\nIRF1")).toBeNull();
    expect(pastedDeTable("STAT1, IRF1, MX1\nISG15, IFIT1")).toBeNull();
    expect(pastedDeTable('["STAT1", "IRF1"]')).toBeNull();
    expect(pastedDeTable('[1] "STAT1" "IRF1"\n[3] "MX1"')).toBeNull();
  });
});

describe("symbols Excel made into dates", () => {
  it("gives the current HGNC symbol", () => {
    expect(excelDateSymbol("1-Mar")).toBe("MARCHF1");
    expect(excelDateSymbol("2-Sep")).toBe("SEPTIN2");
    expect(excelDateSymbol("01-Sep")).toBe("SEPTIN1");
    expect(excelDateSymbol("Sep-13")).toBe("SEPTIN7P2");
    expect(excelDateSymbol("1-Dec")).toBe("DELEC1 or BHLHE40");
    expect(excelDateSymbol("11-March")).toBe("MARCHF11");
  });
  it("leaves other words and impossible dates alone", () => {
    expect(excelDateSymbol("12-Mar")).toBeNull();
    expect(excelDateSymbol("2-Dec")).toBeNull();
    expect(excelDateSymbol("STAT1")).toBeNull();
    expect(excelDateSymbol("1-Jan")).toBeNull();
  });
});
