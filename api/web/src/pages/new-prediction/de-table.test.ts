import { describe, expect, it } from "vitest";
import { degsOf, readDeTable, ROW_NAMES } from "./de-table.ts";

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
});
