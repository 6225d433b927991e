import { describe, expect, it } from "vitest";
import { readFile } from "node:fs/promises";
import { join } from "node:path";
import { KANG_DIR } from "../../../test/shared-data.ts";
import { selectDegs } from "./de-table.ts";

const TSV = [
  "gene\tsymbol\tlogFC\tFDR",
  "ENSG00000185745\tIFIT1\t4\t1e-9",
  "ENSG00000075624\tACTB\t0.1\t0.5",
].join("\n");

describe("DEGs from a DE table", () => {
  const edgeR = () => readFile(join(KANG_DIR, "split_cd14mono", "pseudobulk_edgeR_results.tsv"), "utf8");

  it("reads an edgeR table (logFC, FDR) by its column names, genes from hgnc_symbol", async () => {
    const picked = selectDegs(await edgeR(), { padj: 0.05, lfc: 1 });
    expect(picked.columns).toEqual({ gene: "hgnc_symbol", padj: "FDR", lfc: "logFC" });
    expect(picked.geneColumnFrom).toBe("name");
    expect(picked.notes).toEqual([]);
    expect(picked.nRows).toBe(1225);
    // The provenance's DEG rule (FDR < 0.05 and |log2FC| >= 1) gives its 433 DEGs.
    expect(picked.degs.length).toBe(433);
    expect(picked.degs.slice(0, 2)).toEqual(["CCL8", "CXCL10"]);
    // The `gene` column glues Ensembl ids to some symbols; hgnc_symbol has the symbols (and current names).
    expect(picked.degs).toEqual(expect.arrayContaining(["TAP1", "PSMB8", "PSMB9", "HLA-A", "RIGI"]));
    expect(picked.degs.some((g) => g.includes("_ENSG"))).toBe(false);
  });

  it("takes the gene column the user names, and says when its ids are glued to Ensembl ids", async () => {
    const picked = selectDegs(await edgeR(), { padj: 0.05, lfc: 1, geneColumn: "GENE" });
    expect(picked.columns.gene).toBe("gene");
    expect(picked.geneColumnFrom).toBe("option");
    expect(picked.degs).toContain("TAP1_ENSG00000168394");
    expect(picked.notes).toEqual([
      expect.stringMatching(/^\d+ genes in gene carry an Ensembl id .*--degs-table-gene-column hgnc_symbol$/),
    ]);
    expect(() => selectDegs(TSV, { padj: 0.05, lfc: 1, geneColumn: "ensembl" })).toThrow(
      /no column "ensembl" \(--degs-table-gene-column\); its header is gene, symbol, logFC, FDR/,
    );
  });

  it("prefers a symbol column to a gene-id column, wherever they stand", () => {
    expect(selectDegs(TSV, { padj: 0.05, lfc: 1 })).toMatchObject({
      degs: ["IFIT1"],
      columns: { gene: "symbol" },
    });
  });

  it("reads DESeq2's write.csv output, whose gene column has no name", () => {
    const csv = [
      '"","baseMean","log2FoldChange","lfcSE","stat","pvalue","padj"',
      '"IFIT1",512.3,4.2,0.3,14,1e-40,1e-36',
      '"MX1",300,-1.5,0.3,5,1e-6,0.001',
      '"ACTB",9000,0.1,0.05,2,0.04,0.2',
      '"LOWFC",10,0.5,0.2,2.5,1e-3,0.01',
    ].join("\n");
    const picked = selectDegs(csv, { padj: 0.05, lfc: 1 });
    expect(picked.degs).toEqual(["IFIT1", "MX1"]);
    expect(picked.columns.padj).toBe("padj");
    expect(picked.geneColumnFrom).toBe("row_names");
  });

  it("reads R's write.table output, whose header has one field fewer than the rows", () => {
    const tsv = [
      "logFC\tAveExpr\tt\tP.Value\tadj.P.Val",
      "IFIT1\t3\t8\t12\t1e-9\t1e-7",
      "ACTB\t0.1\t9\t1\t0.3\t0.5",
    ].join("\n");
    expect(selectDegs(tsv, { padj: 0.05, lfc: 1 })).toMatchObject({
      degs: ["IFIT1"],
      columns: { gene: "(row names)" },
    });
  });

  it("says which columns it needs when the table has none of them", () => {
    expect(() => selectDegs("gene\tscore\nA\t1\n", { padj: 0.05, lfc: 1 })).toThrow(
      /adjusted p-value column/,
    );
  });
});
