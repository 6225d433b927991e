/**
 * The runner's DE-table reader (`target-id --de-table`, validation cases) on the tables the tools
 * write, and on the validation cases' own tables, which it must keep reading as it always has.
 */
import { readFile } from "node:fs/promises";
import { join } from "node:path";
import { gunzipSync } from "node:zlib";
import { DeTableFormatError } from "@causeway/contract";
import { describe, expect, it } from "vitest";
import { HGNC_DIR, KNOWN_ANSWERS_DIR, sharedData } from "../../../test/shared-data.ts";
import { SymbolTable } from "../symbols/index.ts";
import { readDeTable } from "./de-table.ts";

/** Takes upper-case symbols as they are: enough for the inline tables. */
const symbols = { resolve: (s: string) => (/^[A-Z][A-Z0-9-]*$/.test(s) ? s : null) };

/** DESeq2's results(): HES4's fold change is infinite, AURKAIP1 has no padj. */
const DESEQ2_ROWS = [
  ["HES4", "60.07", "Inf", "4.21", "2.18", "0.029", "0.096"],
  ["ISG15", "6595.27", "8.18", "0.52", "15.63", "4.2e-55", "1.8e-52"],
  ["AURKAIP1", "42.46", "-0.54", "0.51", "-1.06", "0.29", "NA"],
];
const DESEQ2_COLUMNS = ["baseMean", "log2FoldChange", "lfcSE", "stat", "pvalue", "padj"];
const DESEQ2_READ = {
  genes: ["HES4", "ISG15", "AURKAIP1"],
  logFC: [Infinity, 8.18, -0.54],
  meanCp10kCtrl: null,
  stat: [2.18, 15.63, -1.06],
};

describe("the runner's DE table", () => {
  it("reads DESeq2's own table: log2FoldChange and the Wald stat", () => {
    const tsv = [["gene", ...DESEQ2_COLUMNS], ...DESEQ2_ROWS].map((r) => r.join("\t")).join("\n");
    expect(readDeTable(tsv, symbols)).toEqual(DESEQ2_READ);
  });

  it("reads R's write.table output, whose header is one field short, without shifting the statistic", () => {
    const tsv = [DESEQ2_COLUMNS, ...DESEQ2_ROWS].map((r) => r.join("\t")).join("\n");
    // Shifted, stat would be lfcSE (4.21, 0.52, 0.51).
    expect(readDeTable(tsv, symbols)).toEqual(DESEQ2_READ);
  });

  it("reads the same table written as a CSV by write.csv, and by a European spreadsheet", () => {
    const quote = (r: string[]) => r.map((c) => `"${c}"`).join(",");
    const csv = [quote(["", ...DESEQ2_COLUMNS]), ...DESEQ2_ROWS.map(quote)].join("\r\n");
    expect(readDeTable(csv, symbols)).toEqual(DESEQ2_READ);
    const semicolon = [["gene", ...DESEQ2_COLUMNS], ...DESEQ2_ROWS]
      .map((r) => r.map((c) => c.replace(".", ",")).join(";"))
      .join("\n");
    expect(readDeTable(`\uFEFF${semicolon}`, symbols)).toEqual(DESEQ2_READ);
  });

  it("signs edgeR's likelihood ratio by the fold change", () => {
    const table = readDeTable(
      "logFC\tlogCPM\tLR\tPValue\tFDR\nCCL8\t13.2\t13.5\t16\t1e-95\t1e-91\nACTB\t-0.5\t15.1\t4\t0.1\t0.3\n",
      symbols,
    );
    expect(table).toMatchObject({ genes: ["CCL8", "ACTB"], logFC: [13.2, -0.5], stat: [4, -2] });
  });

  it("reads scanpy's scores and Seurat v3's natural-log fold changes", () => {
    const scanpy = readDeTable(
      "group,names,scores,logfoldchanges,pvals,pvals_adj\nstim,ISG15,15.6,8.2,1e-55,1e-52\n",
      symbols,
    );
    expect(scanpy).toMatchObject({ genes: ["ISG15"], logFC: [8.2], stat: [15.6] });
    const seurat = readDeTable(
      ",p_val,avg_logFC,pct.1,pct.2,p_val_adj\nIFIT3,1e-20,0.75,0.9,0.2,1e-16\n",
      symbols,
    );
    expect(seurat.logFC[0]).toBeCloseTo(0.75 / Math.LN2, 12);
    expect(seurat.stat).toBeNull();
  });

  it("reads its own degs.tsv: log2FC, stat and mean_cp10k_ctrl", () => {
    const tsv = [
      "gene\tbase_mean\tlog2FC\tlfcSE\tstat\tpvalue\tpadj\tmean_cp10k_ctrl\tmean_cp10k_pert\tis_deg\tin_model\tin_universe",
      "ISG15\t120.5\t3.5\t0.2\t17.5\t1e-60\t1e-56\t12.25\t140\tTRUE\tTRUE\tTRUE",
      "ACTB\t9000\t0.01\t0.05\t0.2\t0.8\t0.9\tNA\t800\tFALSE\tTRUE\tTRUE",
    ].join("\n");
    expect(readDeTable(tsv, symbols)).toEqual({
      genes: ["ISG15", "ACTB"],
      logFC: [3.5, 0.01],
      meanCp10kCtrl: [12.25, null],
      stat: [17.5, 0.2],
    });
  });

  it("says which columns it found and which it looks for when none is usable", () => {
    const read = () => readDeTable("gene,pvalue\nISG15,1e-9\n", symbols);
    expect(read).toThrow(DeTableFormatError);
    expect(read).toThrow(
      /^the DE table needs a log2 fold-change column \(log2foldchange, logfc, .*\) or a test-statistic column \(t, stat, scores\) or .*; its header is gene, pvalue$/,
    );
    expect(() => readDeTable("gene\tlogFC\n12345\t1\n", symbols)).toThrow(
      /^none of the DE table's 1 genes \(in gene\) is a known HGNC symbol$/,
    );
  });

  describe("the validation cases' tables", async () => {
    const hgnc = await SymbolTable.load(HGNC_DIR);
    /** A plain tab split: how these tables (no quotes, `NA` for missing) were always read. */
    const plainRead = (text: string, gene: string, fc: string, stat: string) => {
      const [header, ...lines] = text
        .trimEnd()
        .split("\n")
        .map((l) => l.split("\t"));
      const at = (name: string) => header!.indexOf(name);
      const num = (cell: string | undefined) => (cell === "NA" || cell === "" ? null : Number(cell));
      const seen = new Set<string>();
      const out = { genes: [] as string[], logFC: [] as (number | null)[], stat: [] as (number | null)[] };
      for (const cells of lines) {
        const symbol = cells[at(gene)] === "NA" ? null : hgnc.resolve(cells[at(gene)]!);
        if (symbol === null || seen.has(symbol)) continue;
        seen.add(symbol);
        out.genes.push(symbol);
        out.logFC.push(num(cells[at(fc)]));
        out.stat.push(num(cells[at(stat)]));
      }
      return out;
    };

    it("reads hgnc_symbol, logFC and stat as a plain tab split does", async () => {
      const dir = sharedData("known_answers_v3", "morphic_dlx4_prs_d6_ptc_2024_09_rnaseq5");
      const text = gunzipSync(await readFile(join(dir, "de_table.tsv.gz"))).toString("utf8");
      expect(readDeTable(text, hgnc)).toEqual({
        ...plainRead(text, "hgnc_symbol", "logFC", "stat"),
        meanCp10kCtrl: null,
      });
    });

    it("takes Kang's curated hgnc_symbol over its glued gene column, and signs √LR", async () => {
      const text = await readFile(join(KNOWN_ANSWERS_DIR, "kang2018_ifnb_cd14mono", "de_table.tsv"), "utf8");
      const table = readDeTable(text, hgnc);
      const tap1 = table.genes.indexOf("TAP1");
      expect(tap1).toBeGreaterThanOrEqual(0);
      expect(table.logFC[tap1]).toBe(2.50077463195818);
      expect(table.stat![tap1]).toBeCloseTo(Math.sqrt(110.21047996202), 9);
      expect(table.genes.some((g) => g.includes("_ENSG"))).toBe(false);
    });
  });
});
