/**
 * A contrast as the analysis sees it, whatever it came from: a merged upload (one contrast
 * per perturbation level), a split upload, or a DEG list with a DE table on the command line.
 * Everything downstream (scores, causal paths, artifacts) works on this one shape.
 */
import type { DatasetSummary } from "@causeway/contract";
import { applyDegRule, filterByExpr, runDifferentialExpression, type DeResult } from "../de/index.ts";
import { pooledLog2FoldChanges } from "../de/pooled.ts";
import type { PreparedContrast, PreparedSplit } from "../inputs/index.ts";
import type { Model } from "../model/index.ts";
import type { ControlDepth } from "../scoring/index.ts";
import type { DeTable } from "./de-table.ts";

/** One row of degs.tsv (model.md §13). */
export interface DegsTableRow {
  gene: string;
  base_mean: number | null;
  log2FC: number | null;
  lfcSE: number | null;
  stat: number | null;
  pvalue: number | null;
  padj: number | null;
  mean_cp10k_ctrl: number | null;
  mean_cp10k_pert: number | null;
  is_deg: boolean;
  in_model: boolean;
  in_universe: boolean;
  [column: string]: string | number | boolean | null;
}

export interface Contrast {
  /** Result-set prefix of its artifacts ("" for a single result set). */
  prefix: string;
  controlLevel: string | null;
  perturbedLevel: string | null;
  /** Genes that could have been called DEGs (before intersecting with the model). */
  universe: string[];
  /** The job's DEG symbols after normalization, mapped to the model or not (`is_deg`). */
  degSymbols: Set<string>;
  /** Mapped DEGs D in matrix column order (model.md §7.8). */
  mappedDegs: string[];
  /** log2 fold change per measured gene (perturbed vs control). */
  log2fc: Map<string, number | null>;
  /**
   * The DE test's signed statistic per tested gene (the GLM's Wald statistic, or a DE table's
   * `stat` / `t` column); null when the job has none (a bare list, pooled counts, a table
   * without one).
   */
  testStatistic: Map<string, number> | null;
  meanCp10kControl: Map<string, number>;
  meanCp10kBoth: Map<string, number>;
  /**
   * DEG-list input only: control-arm mean CP10k from the DE table, when it carries one. Model v1
   * ignores it (its outputs for DEG lists are frozen); model v2 judges expression by it.
   */
  tableMeanCp10kControl?: Map<string, number>;
  /**
   * Genes the job's data measured: the count matrix's genes, or a DE table's rows, plus the
   * DEGs; null for a bare DEG list. Model v2 ranks candidates whose gene is not among them after
   * the measured ones.
   */
  measuredGenes: Set<string> | null;
  /** The control arm's pooled counts per gene and their total; null without counts. */
  controlDepth: ControlDepth | null;
  degsTable: DegsTableRow[];
  summary: DatasetSummary | null;
  /** Recorded in run_metadata.json. */
  metadata: Record<string, unknown>;
  /** The pseudo-bulk the DE ran on, for its artifacts; absent for DEG-list input. */
  prepared: PreparedContrast | null;
  de: DeResult | null;
}

const byAbsFoldThenSymbol =
  (fc: Map<string, number | null>) =>
  (a: string, b: string): number => {
    const fa = fc.get(a) ?? null;
    const fb = fc.get(b) ?? null;
    if (fa === null || fb === null) {
      if (fa !== fb) return fa === null ? 1 : -1;
    } else if (Math.abs(fa) !== Math.abs(fb)) return Math.abs(fb) - Math.abs(fa);
    return a < b ? -1 : a > b ? 1 : 0;
  };

/** D for split uploads and DEG lists: by |log2FC| descending, then symbol, null fold changes last (§7.8). */
export function orderSuppliedDegs(
  model: Model,
  degs: Iterable<string>,
  fc: Map<string, number | null>,
): string[] {
  return [...new Set(degs)].filter((s) => model.rnaIndex(s) >= 0).sort(byAbsFoldThenSymbol(fc));
}

/** D for merged uploads: by padj ascending, then |log2FC| descending, then symbol (§7.8). */
export function orderCalledDegs(model: Model, rows: DegsTableRow[]): string[] {
  return rows
    .filter((r) => r.is_deg && model.rnaIndex(r.gene) >= 0)
    .sort((a, b) => {
      const pa = a.padj ?? Infinity;
      const pb = b.padj ?? Infinity;
      if (pa !== pb) return pa - pb;
      const fa = Math.abs(a.log2FC ?? 0);
      const fb = Math.abs(b.log2FC ?? 0);
      if (fa !== fb) return fb - fa;
      return a.gene < b.gene ? -1 : a.gene > b.gene ? 1 : 0;
    })
    .map((r) => r.gene);
}

function expressionMaps(p: PreparedContrast): { control: Map<string, number>; both: Map<string, number> } {
  const control = new Map<string, number>();
  const both = new Map<string, number>();
  p.pseudoBulk.genes.forEach((g, i) => {
    const c = p.meanCp10k.control[i]!;
    control.set(g, c);
    both.set(g, (c + p.meanCp10k.perturbed[i]!) / 2);
  });
  return { control, both };
}

/** Pooled control-arm counts (every observation of the arm, as mean_cp10k uses). */
export function controlDepthOf(p: PreparedContrast): ControlDepth {
  const { counts, librarySize } = p.pooled;
  return {
    librarySize: librarySize[0],
    counts: new Map(p.pseudoBulk.genes.map((g, i) => [g, counts[i * 2]!])),
  };
}

function statisticOf(de: DeResult): Map<string, number> {
  return finiteByGene(
    de.genes.map((r) => r.gene),
    de.genes.map((r) => r.stat),
  );
}

function finiteByGene(genes: readonly string[], values: readonly (number | null)[]): Map<string, number> {
  const out = new Map<string, number>();
  genes.forEach((g, i) => {
    const v = values[i];
    if (v !== null && v !== undefined && Number.isFinite(v)) out.set(g, v);
  });
  return out;
}

function tableRow(
  p: PreparedContrast,
  gi: number,
  de: DeResult["genes"][number] | undefined,
  log2FC: number | null,
  flags: { is_deg: boolean; in_model: boolean; in_universe: boolean },
): DegsTableRow {
  return {
    gene: p.pseudoBulk.genes[gi]!,
    base_mean: de?.base_mean ?? null,
    log2FC,
    lfcSE: de?.lfcSE ?? null,
    stat: de?.stat ?? null,
    pvalue: de?.pvalue ?? null,
    padj: de?.padj ?? null,
    mean_cp10k_ctrl: p.meanCp10k.control[gi]!,
    mean_cp10k_pert: p.meanCp10k.perturbed[gi]!,
    ...flags,
  };
}

/**
 * A merged-upload contrast: the DE calls the DEGs (model.md §5.8); `prefix` names its result set
 * (resultSetPrefixes of every level of the upload).
 */
export function contrastFromMerged(model: Model, p: PreparedContrast, prefix: string): Contrast {
  const de = runDifferentialExpression(p.pseudoBulk, { paired: p.design.paired });
  const rule = applyDegRule(de);
  const degSet = new Set(rule.degs);
  const tested = new Map(de.genes.map((r) => [r.gene, r]));
  const geneIndex = new Map(p.pseudoBulk.genes.map((g, i) => [g, i]));
  const universe = de.genes.map((r) => r.gene);
  const degsTable = universe.map((gene) => {
    const r = tested.get(gene)!;
    return tableRow(p, geneIndex.get(gene)!, r, r.log2FC, {
      is_deg: degSet.has(gene),
      in_model: model.rnaIndex(gene) >= 0,
      in_universe: model.rnaIndex(gene) >= 0,
    });
  });
  const { control, both } = expressionMaps(p);
  return {
    prefix,
    controlLevel: p.controlLevel,
    perturbedLevel: p.perturbedLevel,
    universe,
    degSymbols: degSet,
    mappedDegs: orderCalledDegs(model, degsTable),
    log2fc: new Map(de.genes.map((r) => [r.gene, r.log2FC])),
    testStatistic: statisticOf(de),
    meanCp10kControl: control,
    meanCp10kBoth: both,
    measuredGenes: new Set(p.pseudoBulk.genes),
    controlDepth: controlDepthOf(p),
    degsTable,
    summary: p.summary,
    metadata: { ...p.metadata, deg_rule: rule.rule, large_deg_set: rule.largeDegSet, logfc_method: "glm" },
    prepared: p,
    de,
  };
}

/**
 * A split-upload contrast: the user's list defines the DEGs; the GLM (or pooled counts
 * without replicates) only supplies fold changes (model.md §5.9). The universe is the
 * filterByExpr genes, or mean_cp10k ≥ 0.1 in either arm without replicates (§7.1).
 */
export function contrastFromSplit(model: Model, p: PreparedSplit): Contrast {
  const genes = p.pseudoBulk.genes;
  let de: DeResult | null = null;
  const log2fc = new Map<string, number | null>();
  let universe: string[];
  if (p.replicated) {
    // No expression filter for the fit: every supplied DEG needs a fold change.
    de = runDifferentialExpression(p.pseudoBulk, { paired: p.design.paired, geneFilter: "none" });
    for (const r of de.genes) log2fc.set(r.gene, r.log2FC);
    const keep = filterByExpr(p.pseudoBulk).keep;
    universe = genes.filter((_, i) => keep[i]);
  } else {
    const pooled = pooledLog2FoldChanges(
      { genes, samples: pooledSamples(), counts: p.pooled.counts },
      p.pooled.librarySize,
    );
    pooled.genes.forEach((g, i) => log2fc.set(g, pooled.log2FC[i]!));
    universe = genes.filter((_, i) => p.meanCp10k.control[i]! >= 0.1 || p.meanCp10k.perturbed[i]! >= 0.1);
  }
  const degSymbols = new Set(p.degs.symbols);
  const inUniverse = new Set(universe);
  const tested = new Map((de?.genes ?? []).map((r) => [r.gene, r]));
  const degsTable = genes.flatMap((gene, gi) => {
    if (!inUniverse.has(gene) && !degSymbols.has(gene)) return [];
    const inModel = model.rnaIndex(gene) >= 0;
    return [
      tableRow(p, gi, tested.get(gene), log2fc.get(gene) ?? null, {
        is_deg: degSymbols.has(gene),
        in_model: inModel,
        in_universe: inModel && (inUniverse.has(gene) || degSymbols.has(gene)),
      }),
    ];
  });
  const { control, both } = expressionMaps(p);
  return {
    prefix: "",
    controlLevel: p.controlLevel,
    perturbedLevel: p.perturbedLevel,
    universe,
    degSymbols,
    mappedDegs: orderSuppliedDegs(model, p.degs.symbols, log2fc),
    log2fc,
    testStatistic: de ? statisticOf(de) : null,
    meanCp10kControl: control,
    meanCp10kBoth: both,
    measuredGenes: new Set([...genes, ...degSymbols]),
    controlDepth: controlDepthOf(p),
    degsTable,
    summary: { ...p.summary, n_degs: p.degs.nDegs },
    metadata: {
      ...p.metadata,
      logfc_method: p.logfcMethod,
      unresolved_degs: p.degs.unresolved,
      ambiguous_degs: p.degs.ambiguous,
    },
    prepared: p,
    de,
  };
}

/** The two pooled columns of PreparedContrast.pooled as a two-sample pseudo-bulk. */
function pooledSamples(): { id: string; arm: 0 | 1; donor: null; nCells: number }[] {
  return [
    { id: "control", arm: 0, donor: null, nCells: 1 },
    { id: "perturbed", arm: 1, donor: null, nCells: 1 },
  ];
}

/**
 * A DEG list with an optional DE table (command line, model.md §16.5). With a table, the
 * universe is the table's genes plus the DEGs (the genes that could have been called DEGs, §7.1)
 * and fold changes come from its `logFC` column. A bare DEG list says nothing about which genes
 * were measured, so its universe is genome-wide: every RNA node of the model (plus the DEGs
 * outside it, which only `degs.tsv` shows), the background ChEA3 and Enrichr use for gene sets.
 */
export function contrastFromDegList(
  model: Model,
  degs: string[],
  table: (Pick<DeTable, "genes" | "logFC"> & Partial<Pick<DeTable, "meanCp10kCtrl" | "stat">>) | null,
  /** Up (+1) or down (−1) per DEG, for a signed DEG list without a table (model v3 reads the signs). */
  signs?: ReadonlyMap<string, number>,
): Contrast {
  const log2fc = new Map<string, number | null>();
  table?.genes.forEach((g, i) => log2fc.set(g, table.logFC[i] ?? null));
  if (signs) for (const [g, v] of signs) if ((log2fc.get(g) ?? null) === null) log2fc.set(g, Math.sign(v));
  const tableExpression = new Map<string, number>();
  table?.genes.forEach((g, i) => {
    const v = table.meanCp10kCtrl?.[i];
    if (v !== null && v !== undefined && Number.isFinite(v)) tableExpression.set(g, v);
  });
  const testStatistic = table?.stat ? finiteByGene(table.genes, table.stat) : null;
  const degSymbols = new Set(degs);
  const universe = [...new Set([...(table ? table.genes : model.rnaSymbols), ...degs])];
  const degsTable: DegsTableRow[] = universe.map((gene) => ({
    gene,
    base_mean: null,
    log2FC: log2fc.get(gene) ?? null,
    lfcSE: null,
    stat: testStatistic?.get(gene) ?? null,
    pvalue: null,
    padj: null,
    mean_cp10k_ctrl: null,
    mean_cp10k_pert: null,
    is_deg: degSymbols.has(gene),
    in_model: model.rnaIndex(gene) >= 0,
    in_universe: model.rnaIndex(gene) >= 0,
  }));
  return {
    prefix: "",
    controlLevel: null,
    perturbedLevel: null,
    universe,
    degSymbols,
    mappedDegs: orderSuppliedDegs(model, degs, log2fc),
    log2fc,
    testStatistic,
    meanCp10kControl: new Map(),
    meanCp10kBoth: new Map(),
    ...(tableExpression.size > 0 ? { tableMeanCp10kControl: tableExpression } : {}),
    measuredGenes: table ? new Set(universe) : null,
    controlDepth: null,
    degsTable,
    summary: { n_degs: degSymbols.size },
    metadata: {
      input: "deg_list",
      logfc_method: table ? "de_table" : "none",
      universe: table ? "de_table" : "genome_wide",
    },
    prepared: null,
    de: null,
  };
}
