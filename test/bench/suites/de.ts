/**
 * Differential expression (model.md §15.3: "a few thousand genes … well under a second"):
 * the TypeScript DESeq2 port against edgeR (filterByExpr + TMM + estimateDisp + glmFit +
 * glmLRT) and DESeq2's own DESeq() on the same matrices, timed inside R so that R's start-up
 * and package loading are not counted. Needs Debian's r-bioc-edger / r-bioc-deseq2 for the
 * references; without Rscript the reference is reported as missing.
 */
import { execFile } from "node:child_process";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import type { BenchRow, BenchSuite } from "../bench.ts";
import { timeIt } from "../bench.ts";
import { runDifferentialExpression } from "@causeway/runner/de";
import type { PseudoBulk } from "@causeway/runner/de";
import { kangPseudoBulk, synthetic4v4 } from "@causeway/runner/testing";

const run = promisify(execFile);
const R_TIMEOUT_MS = 600_000;

/** Median in-R seconds of `expr` over `repeats` runs after a warm-up, or an error text. */
async function rSeconds(
  setup: string,
  expr: string,
  repeats: number,
): Promise<{ seconds: number } | { error: string }> {
  const script = `${setup}
f <- function() { ${expr} }
invisible(f())
t <- sapply(seq_len(${repeats}), function(i) system.time(f())[["elapsed"]])
cat(median(t))`;
  try {
    const { stdout } = await run("Rscript", ["-e", script], { timeout: R_TIMEOUT_MS });
    const s = Number(stdout.trim().split(/\s+/).pop());
    return Number.isFinite(s) ? { seconds: s } : { error: `unexpected R output: ${stdout.slice(0, 200)}` };
  } catch (e) {
    const err = e as NodeJS.ErrnoException & { stderr?: string };
    return {
      error: err.code === "ENOENT" ? "Rscript not installed" : (err.stderr ?? err.message).slice(0, 200),
    };
  }
}

function countsTsv(pb: PseudoBulk): string {
  const m = pb.samples.length;
  const lines = [["gene", ...pb.samples.map((s) => s.id)].join("\t")];
  pb.genes.forEach((g, i) =>
    lines.push([g, ...Array.from(pb.counts.subarray(i * m, (i + 1) * m))].join("\t")),
  );
  return lines.join("\n") + "\n";
}

/** The simulated 4 vs 4 matrix tiled to `n` genes, each copy shifted by a small count. */
function tiled(n: number): PseudoBulk {
  const base = synthetic4v4();
  const m = base.samples.length;
  const g0 = base.genes.length;
  const counts = new Float64Array(n * m);
  const genes: string[] = [];
  for (let i = 0; i < n; i++) {
    const src = i % g0;
    const copy = Math.floor(i / g0);
    genes.push(`${base.genes[src]}_${copy}`);
    for (let j = 0; j < m; j++) counts[i * m + j] = base.counts[src * m + j]! + ((copy * (j + 1)) % 3);
  }
  return { genes, samples: base.samples, counts };
}

function readSetup(path: string, paired: boolean): string {
  return `suppressMessages({library(edgeR); library(DESeq2)})
x <- as.matrix(read.delim(${JSON.stringify(path)}, row.names = 1, check.names = FALSE))
cond <- factor(ifelse(startsWith(colnames(x), "ctrl"), "ctrl", "pert"), levels = c("ctrl", "pert"))
${paired ? "donor <- factor(substr(colnames(x), 5, 7)); design <- model.matrix(~ donor + cond); cd <- data.frame(row.names = colnames(x), donor, cond); fml <- ~ donor + cond" : "design <- model.matrix(~ cond); cd <- data.frame(row.names = colnames(x), cond); fml <- ~ cond"}`;
}

const EDGER = `y <- DGEList(x); keep <- filterByExpr(y, group = cond); y <- y[keep, , keep.lib.sizes = FALSE]
y <- calcNormFactors(y); y <- estimateDisp(y, design); fit <- glmFit(y, design); glmLRT(fit, coef = ncol(design))`;
const DESEQ2 = `dds <- DESeqDataSetFromMatrix(x, cd, fml); dds <- DESeq(dds, quiet = TRUE); results(dds, independentFiltering = FALSE)`;

export const suite: BenchSuite = {
  name: "de",
  async run(): Promise<BenchRow[]> {
    const rows: BenchRow[] = [];
    const dir = await mkdtemp(join(tmpdir(), "causeway-bench-de-"));
    try {
      const cases: { label: string; pb: PseudoBulk; paired: boolean }[] = [
        { label: "Kang CD14 pseudo-bulk, 2 vs 2 paired", pb: kangPseudoBulk(), paired: true },
        { label: "simulated 6,000 genes, 4 vs 4", pb: tiled(6000), paired: false },
      ];
      for (const c of cases) {
        // R reads ctrl*/other: rename the Kang arms so one setup fits both matrices.
        const pb = {
          ...c.pb,
          samples: c.pb.samples.map((s) => ({ ...s, id: s.id.replace(/^stim/, "pert") })),
        };
        const path = join(dir, `${c.label.replace(/\W+/g, "_")}.tsv`);
        await writeFile(path, countsTsv(pb));
        let nTested = 0;
        const seconds = await timeIt(() => {
          nTested = runDifferentialExpression(pb, { paired: c.paired }).genes.length;
        }, 5);
        // CPU time of one more run, because wall time on a shared machine includes waiting.
        const cpu0 = process.cpuUsage();
        runDifferentialExpression(pb, { paired: c.paired });
        const cpu = process.cpuUsage(cpu0);
        const cpuMs = ((cpu.user + cpu.system) / 1000).toFixed(0);
        const note = `${pb.genes.length} genes, ${nTested} after filterByExpr; CPU ${cpuMs} ms per run; goal: well under 1 s (§15.3)`;
        // DESeq2 takes tens of seconds on the larger matrix: one timed run after the warm-up.
        for (const [ref, expr, repeats] of [
          ["edgeR filterByExpr+TMM+estimateDisp+glmFit+glmLRT (in-R time)", EDGER, 3],
          ["DESeq2 1.38 DESeq()+results() on the same genes unfiltered (in-R time)", DESEQ2, 1],
        ] as const) {
          const r = await rSeconds(readSetup(path, c.paired), expr, repeats);
          rows.push({
            name: `TS DESeq2 port, ${c.label}`,
            seconds,
            reference: ref,
            referenceSeconds: "seconds" in r ? r.seconds : null,
            note: "seconds" in r ? note : `${note}; reference missing: ${r.error}`,
          });
        }
      }
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
    return rows;
  },
};
