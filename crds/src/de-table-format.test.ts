import { describe, expect, it } from "vitest";
import {
  DeTableFormatError,
  degRows,
  log2FoldChangeCell,
  missingColumnsMessage,
  numberCell,
  readDeTableFile,
  ROW_NAMES,
  type DeTableFile,
} from "./de-table-format.ts";

/** The DEGs of a table by its detected columns at padj < 0.05 and |log2FC| >= 1. */
const degsOf = (t: DeTableFile) =>
  degRows(
    t,
    { gene: t.detected.gene!, padj: t.detected.padj!, foldChange: t.detected.foldChange! },
    { padjMax: 0.05, lfcMin: 1 },
  );

describe("a DE table file", () => {
  it("keeps quoted fields whole: commas and doubled quotes inside them (a biomaRt description)", () => {
    const t = readDeTableFile(
      [
        "gene,description,baseMean,log2FoldChange,lfcSE,stat,pvalue,padj",
        'ISG15,"ISG15 ubiquitin like modifier [Source:HGNC Symbol;Acc:HGNC:4053]",6595.2,8.17,0.52,15.6,4.2e-55,1.7e-52',
        'MRPL20,"mitochondrial ribosomal protein L20, ""large"" subunit",300,0.05,0.1,0.5,0.6,0.8',
        "ACTB,actin beta,9000,-0.1,0.05,-2,0.04,0.2",
      ].join("\n"),
    );
    expect(t.separator).toBe(",");
    expect(t.rows[1]).toEqual([
      "MRPL20",
      'mitochondrial ribosomal protein L20, "large" subunit',
      "300",
      "0.05",
      "0.1",
      "0.5",
      "0.6",
      "0.8",
    ]);
    // Split on every comma, MRPL20's padj would be its pvalue and its fold change its baseMean.
    expect(degsOf(t).genes).toEqual(["ISG15"]);
  });

  it("never selects a row whose adjusted p-value is missing (empty from pandas, NA from R)", () => {
    const t = readDeTableFile(
      [
        "gene,baseMean,log2FoldChange,lfcSE,stat,pvalue,padj",
        "ISG15,6595.2,8.17,0.52,15.6,4.2e-55,1.7e-52",
        // Independent filtering: a low count gene with a large fold change and no padj.
        "GNLY,2.1,3.5,2.1,1.6,0.09,",
        "RGS2,1.5,-2.2,1.9,-1.1,0.2,NA",
        "AIM2,0.9,4.0,3.0,1.3,NaN,nan",
        "LOWFC,10,,0.2,2.5,1e-3,0.01",
      ].join("\n"),
    );
    expect(degsOf(t)).toEqual({ genes: ["ISG15"], missingPadj: 3, missingFoldChange: 1 });
  });

  it("reads a European spreadsheet's CSV: semicolons, decimal commas", () => {
    const t = readDeTableFile(
      [
        "gene;baseMean;log2FoldChange;lfcSE;stat;pvalue;padj",
        "ISG15;6595,27412879139;8,17625678086334;0,522947995311535;15,6349328311174;4,20918469238675e-55;1,77627594018721e-52",
        "AURKAIP1;42,4610498703691;-0,544096445586729;0,511952677095337;-1,06278660104634;0,287878737205978;0,490517471470751",
        "MX1;300;-1,5;0,3;-5;1e-6;0,001",
      ].join("\n"),
    );
    expect(t.separator).toBe(";");
    expect(t.detected).toMatchObject({ gene: "gene", padj: "padj", foldChange: "log2FoldChange" });
    expect(numberCell(t.rows[0]![2])).toBeCloseTo(8.17625678086334, 12);
    expect(numberCell(t.rows[0]![6])).toBeCloseTo(1.77627594018721e-52, 60);
    expect(degsOf(t).genes).toEqual(["ISG15", "MX1"]);
  });

  it("drops a byte-order mark and CRLF line ends", () => {
    const t = readDeTableFile(
      "\uFEFFgene,baseMean,log2FoldChange,padj\r\nISG15,6595.2,8.17,1.7e-52\r\nACTB,9000,0.1,0.5\r\n",
    );
    expect(t.columns).toEqual(["gene", "baseMean", "log2FoldChange", "padj"]);
    expect(t.detected.gene).toBe("gene");
    expect(t.rows.map((r) => r.at(-1))).toEqual(["1.7e-52", "0.5"]);
  });

  it("offers R's unnamed row names: a header one field short (write.table) or an empty first field (write.csv)", () => {
    const writeTable = readDeTableFile(
      "baseMean\tlog2FoldChange\tlfcSE\tstat\tpvalue\tpadj\nISG15\t6595.2\t8.17\t0.52\t15.6\t4.2e-55\t1.7e-52\n",
    );
    expect(writeTable.columns).toEqual([
      ROW_NAMES,
      "baseMean",
      "log2FoldChange",
      "lfcSE",
      "stat",
      "pvalue",
      "padj",
    ]);
    expect(writeTable.detected).toMatchObject({ gene: ROW_NAMES, statistic: "stat" });
    // Aligned with the header, the statistic is 15.6, not lfcSE's 0.52.
    expect(writeTable.rows[0]![writeTable.columns.indexOf("stat")]).toBe("15.6");

    const writeCsv = readDeTableFile('"","logFC","FDR"\n"IFIT1",5,1e-10\n');
    expect(writeCsv.columns).toEqual([ROW_NAMES, "logFC", "FDR"]);
    expect(degsOf(writeCsv).genes).toEqual(["IFIT1"]);
  });

  it("knows scanpy's rank_genes_groups_df columns", () => {
    const t = readDeTableFile(
      "names,scores,logfoldchanges,pvals,pvals_adj\nISG15,15.63,8.17,4.2e-55,1.7e-52\nHES4,2.18,9.18,0.029,0.096\n",
    );
    expect(t.detected).toEqual({
      gene: "names",
      padj: "pvals_adj",
      foldChange: "logfoldchanges",
      statistic: "scores",
      likelihoodRatio: null,
      meanCp10kControl: null,
    });
    expect(degsOf(t).genes).toEqual(["ISG15"]);
  });

  it("turns Seurat v3's natural-log avg_logFC into log2 fold changes", () => {
    expect(log2FoldChangeCell("avg_logFC", "0.75")).toBeCloseTo(0.75 / Math.LN2, 12);
    expect(log2FoldChangeCell("avg_log2FC", "0.75")).toBe(0.75);
    const t = readDeTableFile(
      ",p_val,avg_logFC,pct.1,pct.2,p_val_adj\nIFIT3,1e-20,0.75,0.9,0.2,1e-16\nACTB,1e-3,0.6,1,1,0.01\n",
    );
    expect(t.detected.foldChange).toBe("avg_logFC");
    // ln fold 0.75 is log2 fold 1.08: a DEG at |log2FC| >= 1; 0.6 is 0.87: not one.
    expect(degsOf(t).genes).toEqual(["IFIT3"]);
  });

  it("reads missing numbers as null, never 0, and keeps R's Inf infinite", () => {
    for (const cell of ["", " ", "NA", "NaN", "nan", "N/A", "#N/A", "-", "null", "None", "abc", undefined])
      expect(numberCell(cell)).toBeNull();
    expect([numberCell("Inf"), numberCell("-Inf"), numberCell("inf"), numberCell("Infinity")]).toEqual([
      Infinity,
      -Infinity,
      Infinity,
      Infinity,
    ]);
    expect([numberCell("0"), numberCell("-1.5e-3"), numberCell(" 2 ")]).toEqual([0, -1.5e-3, 2]);
  });

  it("finds columns whatever their case, in the list's order of preference", () => {
    const t = readDeTableFile("Gene\tSYMBOL\tLOGFC\tFDR\tT\nENSG1\tIFIT1\t4\t1e-9\t8\n");
    expect(t.detected).toMatchObject({ gene: "SYMBOL", padj: "FDR", foldChange: "LOGFC", statistic: "T" });
  });

  it("says what it looked for and what the header holds", () => {
    expect(missingColumnsMessage(["padj"], ["gene", "score"])).toBe(
      "needs an adjusted p-value column (padj, fdr, adj.p.val, p_val_adj, pvals_adj, qvalue, q_value, q.value, adj_pval, adj.pval, p_adj, padj_bh); its header is gene, score",
    );
    expect(missingColumnsMessage(["foldChange", "statistic"], [], "one")).toMatch(
      /^needs a log2 fold-change column \(.*avg_logfc\) or a test-statistic column \(t, stat, scores\); it has no header$/,
    );
  });

  it("refuses text that is not a table, saying where", () => {
    expect(() => readDeTableFile('gene,padj\n"IFIT1,0.01\n')).toThrow(DeTableFormatError);
    expect(() => readDeTableFile('gene,padj\n"IFIT1,0.01\n')).toThrow(/cannot be read as a table: .*line 2/);
  });
});
