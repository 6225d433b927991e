import { describe, expect, it } from "vitest";
import { DeTableFormatError, degsOf, notATextTable, readDeTable, ROW_NAMES } from "./de-table.ts";

// The head of the shared Kang edgeR table (split_cd14mono/pseudobulk_edgeR_results.tsv).
const EDGER = [
  "gene\tlogFC\tlogCPM\tLR\tPValue\tFDR\tsymbol\thgnc_symbol",
  "CCL8\t13.2\t13.5\t426.5\t9.2e-95\t1.1e-91\tCCL8\tCCL8",
  "TAP1_ENSG00000168394\t2.1\t9.8\t80.1\t1e-18\t2e-17\tTAP1\tTAP1",
  "ACTB\t0.05\t15.1\t0.2\t0.6\t0.9\tACTB\tACTB",
].join("\n");

describe("a DE table read in the page", () => {
  it("prefers hgnc_symbol to a gene column that carries Ensembl ids", () => {
    const t = readDeTable(
      "gene\thgnc_symbol\tpadj\tlog2FoldChange\nTAP1_ENSG00000168394\tTAP1\t0.001\t2\nX_ENSG1\tX\t0.5\t3\n",
    );
    expect(t.detected).toEqual({ gene: "hgnc_symbol", padj: "padj", lfc: "log2FoldChange" });
    expect(degsOf(t, { gene: "hgnc_symbol", padj: "padj", lfc: "log2FoldChange" }, 0.05, 1)).toEqual([
      "TAP1",
    ]);
  });

  it("takes R's unnamed row names as the gene column", () => {
    const t = readDeTable('"logFC","FDR"\n"IFIT1",5,1e-10\n"ACTB",0.1,0.9\n');
    expect(t.detected.gene).toBe(ROW_NAMES);
    expect(degsOf(t, { gene: ROW_NAMES, padj: "FDR", lfc: "logFC" }, 0.05, 1)).toEqual(["IFIT1"]);
  });

  it("reads an edgeR table by its hgnc_symbol column (TAP1 kept)", () => {
    const t = readDeTable(EDGER);
    expect(t.detected).toEqual({ gene: "hgnc_symbol", padj: "FDR", lfc: "logFC" });
    expect(degsOf(t, { gene: "hgnc_symbol", padj: "FDR", lfc: "logFC" }, 0.05, 1)).toEqual(["CCL8", "TAP1"]);
  });

  const degsByDetection = (text: string) => {
    const t = readDeTable(text);
    const { gene, padj, lfc } = t.detected;
    return degsOf(t, { gene: gene!, padj: padj!, lfc: lfc! }, 0.05, 1);
  };

  it("never takes a row with an empty or NA adjusted p-value (pandas' NaN, DESeq2's filtering) as a DEG", () => {
    const csv = [
      "gene,baseMean,log2FoldChange,lfcSE,stat,pvalue,padj",
      "ISG15,6595.2,8.17,0.52,15.6,4.2e-55,1.7e-52",
      "GNLY,2.1,3.5,2.1,1.6,0.09,",
      "RGS2,1.5,-2.2,1.9,-1.1,0.2,NA",
    ].join("\n");
    expect(degsByDetection(csv)).toEqual(["ISG15"]);
  });

  it("keeps quoted descriptions with commas in one column", () => {
    const csv = [
      "gene,description,baseMean,log2FoldChange,lfcSE,stat,pvalue,padj",
      'ISG15,"ISG15 protein, member 1 [Source:HGNC Symbol;Acc:HGNC:1001]",6595.2,8.17,0.52,15.6,4.2e-55,1.7e-52',
      'PARK7,"PARK7 protein, member 5",300,0.05,0.1,0.5,0.6,0.8',
    ].join("\n");
    const t = readDeTable(csv);
    expect(t.rows.map((r) => r.length)).toEqual([8, 8]);
    expect(degsByDetection(csv)).toEqual(["ISG15"]);
  });

  it("reads scanpy's export and a semicolon CSV with decimal commas", () => {
    const scanpy =
      "names,scores,logfoldchanges,pvals,pvals_adj\nISG15,15.63,8.17,4.2e-55,1.7e-52\nHES4,2.18,9.18,0.029,0.096\n";
    expect(readDeTable(scanpy).detected).toEqual({ gene: "names", padj: "pvals_adj", lfc: "logfoldchanges" });
    expect(degsByDetection(scanpy)).toEqual(["ISG15"]);
    const semicolon = "gene;log2FoldChange;padj\nISG15;8,176;1,77e-52\nMX1;-1,5;0,001\nACTB;0,1;0,5\n";
    expect(readDeTable(semicolon).columns).toEqual(["gene", "log2FoldChange", "padj"]);
    expect(degsByDetection(semicolon)).toEqual(["ISG15", "MX1"]);
  });

  it("refuses a file that is not a table with the contract's error", () => {
    expect(() => readDeTable('gene,padj\n"IFIT1,0.01\n')).toThrow(DeTableFormatError);
  });
});

describe("a file chosen as a DE table that is no text", () => {
  const bytes = (s: string) => Uint8Array.from(s, (c) => c.charCodeAt(0));
  it("says it is not a text table instead of the CSV parser's complaint", () => {
    expect(notATextTable(bytes("%PDF-1.4\n%\xe2\xe3"))).toMatch(
      /^This is not a text table \(CSV\/TSV\): it is a PDF/,
    );
    expect(notATextTable(bytes("PK\x03\x04\x14\x00"))).toMatch(/Excel workbook/);
    expect(notATextTable(bytes("\x89HDF\r\n\x1a\n"))).toMatch(/HDF5/);
    expect(notATextTable(bytes("abc\x00\x01\x02"))).toMatch(/^This is not a text table/);
  });
  it("lets text through, UTF-16 with its byte-order mark included", () => {
    expect(notATextTable(bytes("gene,padj\nSTAT1,0.01\n"))).toBeNull();
    expect(notATextTable(bytes("\xff\xfeg\x00e\x00n\x00e\x00"))).toBeNull();
    expect(notATextTable(bytes("gene;log2FoldChange\nSTAT1;2,3\n\xe9"))).toBeNull();
  });
});
