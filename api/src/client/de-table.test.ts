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
    // Only the missing one, with the names looked for and the header found.
    expect(() =>
      selectDegs("gene\tlogFC\tpvalue\nA\t1\t0.01\n", { padj: 0.05, lfc: 1, file: "t.tsv" }),
    ).toThrow(
      /^t\.tsv: needs an adjusted p-value column \(padj, fdr, .*\); its header is gene, logFC, pvalue$/,
    );
  });

  it("leaves out rows without an adjusted p-value (independent filtering), and says how many", () => {
    // pandas writes PyDESeq2's NaN padj as an empty cell; Number("") would make them 0.
    const csv = [
      "gene,baseMean,log2FoldChange,lfcSE,stat,pvalue,padj",
      "ISG15,6595.2,8.17,0.52,15.6,4.2e-55,1.7e-52",
      "GNLY,2.1,3.5,2.1,1.6,0.09,",
      "SELL,1.8,-2.9,2.0,-1.4,0.15,",
      "RGS2,1.5,-2.2,1.9,-1.1,0.2,NA",
    ].join("\n");
    const picked = selectDegs(csv, { padj: 0.05, lfc: 1 });
    expect(picked.degs).toEqual(["ISG15"]);
    expect(picked.notes).toEqual(["left out: 3 rows with no padj (e.g. DESeq2's independent filtering)"]);
  });

  it("reads quoted descriptions that hold commas without shifting the columns", () => {
    const csv = [
      "gene,description,baseMean,log2FoldChange,lfcSE,stat,pvalue,padj",
      'ISG15,"ISG15 ubiquitin like modifier, member 1 [Source:HGNC Symbol;Acc:HGNC:4053]",6595.2,8.17,0.52,15.6,4.2e-55,1.7e-52',
      'MRPL20,"mitochondrial ribosomal protein L20, large subunit",300,0.05,0.1,0.5,0.6,0.8',
      "YBX1,Y-box binding protein 1,500,0.2,0.1,2,0.03,0.09",
    ].join("\n");
    expect(selectDegs(csv, { padj: 0.05, lfc: 1 }).degs).toEqual(["ISG15"]);
  });

  it("reads a European spreadsheet's CSV (semicolons, decimal commas) and one with a BOM and CRLF", () => {
    const semicolon = [
      "gene;baseMean;log2FoldChange;lfcSE;stat;pvalue;padj",
      "ISG15;6595,27;8,176;0,523;15,63;4,2e-55;1,77e-52",
      "MX1;300;-1,5;0,3;-5;1e-6;0,001",
      "AURKAIP1;42,46;-0,544;0,512;-1,06;0,288;0,491",
    ].join("\n");
    expect(selectDegs(semicolon, { padj: 0.05, lfc: 1 })).toMatchObject({
      degs: ["ISG15", "MX1"],
      columns: { gene: "gene", padj: "padj", lfc: "log2FoldChange" },
    });
    const excel = "\uFEFFgene,log2FoldChange,padj\r\nISG15,8.17,1.7e-52\r\nACTB,0.1,0.5\r\n";
    expect(selectDegs(excel, { padj: 0.05, lfc: 1 })).toMatchObject({ degs: ["ISG15"], nRows: 2 });
  });

  it("reads scanpy's rank_genes_groups_df export", () => {
    const csv =
      "names,scores,logfoldchanges,pvals,pvals_adj\nISG15,15.63,8.17,4.2e-55,1.7e-52\nHES4,2.18,9.18,0.029,0.096\n";
    expect(selectDegs(csv, { padj: 0.05, lfc: 1 })).toMatchObject({
      degs: ["ISG15"],
      columns: { gene: "names", padj: "pvals_adj", lfc: "logfoldchanges" },
      geneColumnFrom: "name",
    });
  });

  it("reads Seurat v3's avg_logFC as the natural log it is, and says so", () => {
    // ln 0.75 is log2 1.08 (a DEG at --lfc 1); ln 0.6 is log2 0.87 (not one).
    const csv =
      ",p_val,avg_logFC,pct.1,pct.2,p_val_adj\nIFIT3,1e-20,0.75,0.9,0.2,1e-16\nACTB,1e-3,0.6,1,1,0.01\n";
    const picked = selectDegs(csv, { padj: 0.05, lfc: 1 });
    expect(picked.degs).toEqual(["IFIT3"]);
    expect(picked.notes).toEqual([
      expect.stringMatching(/^avg_logFC is a natural log \(Seurat before version 4\)/),
    ]);
  });

  it("refuses a file that is not a table with the reason", () => {
    expect(() =>
      selectDegs('gene,padj,logFC\n"IFIT1,0.01,3\n', { padj: 0.05, lfc: 1, file: "t.csv" }),
    ).toThrow(/^t\.csv: cannot be read as a table/);
  });
});
