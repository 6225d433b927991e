/**
 * Known-answer cases made from the Kang 2018 PBMC file with the runner's own pipeline: every
 * cell type is an IFN-β stimulation (expected STAT1; accepted the receptor and ISGF3 axis).
 * Each cell type is written as its own merged upload (one cell type per prediction, model.md
 * §3.5), then checked, aggregated and tested exactly as a job would (inputs + DE). With
 * `permuted`, the cells' condition and sample labels are shuffled within each donor before
 * aggregation: a label-permuted null of the same data (model.md §16.1, null cases).
 *
 * The resulting contrasts are cached as JSON under `<cacheDir>/validate/kang/` keyed by the
 * file's SHA-256, so repeated validation runs skip the DE.
 */
import { createHash } from "node:crypto";
import { mkdir, readFile, rm, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { z } from "zod";
import { readAnnData, readLimits, type CsrMatrix } from "@causeway/runner/anndata";
import { writeTestH5ad } from "@causeway/runner/testing";
import { columnValues, prepareMergedDataset, type PreparedContrast } from "@causeway/runner/inputs";
import { runDifferentialExpression } from "@causeway/runner/de";
import { contrastFromMerged, controlDepthOf } from "@causeway/runner/jobs";
import type { Model } from "@causeway/runner/model";
import { Xoshiro128ss, seedFrom } from "@causeway/runner/scoring";
import type { KnownAnswerCase } from "./known-answers.ts";

export const KANG_EXPECTED = "STAT1";
export const KANG_ACCEPTED = ["IFNAR1", "IFNAR2", "JAK1", "TYK2", "STAT1", "STAT2", "IRF9"];

/** Bump when the way cases are made changes, so cached contrasts are rebuilt. */
const CACHE_FORMAT = 4;

const CachedContrast = z.object({
  format: z.literal(CACHE_FORMAT),
  cellType: z.string(),
  universe: z.array(z.string()),
  degs: z.array(z.string()),
  /** [gene, log2FC, stat] of the DE-tested genes */
  genes: z.array(z.tuple([z.string(), z.number().nullable(), z.number().nullable()])),
  /**
   * [gene, mean_cp10k_ctrl] of every gene of the count matrix, tested or not: what a job
   * measured, and whether it is expressed (model.md §7.5), as the product sees it.
   */
  controlCp10k: z.array(z.tuple([z.string(), z.number()])),
  /** Pooled control-arm counts per gene (same order as controlCp10k) and their total. */
  controlCounts: z.array(z.number()),
  controlLibrary: z.number(),
  error: z.string().nullable(),
});
type CachedContrast = z.infer<typeof CachedContrast>;

/** One Kang cell-type case, or why the runner could not make one (e.g. too few DEGs). */
export interface KangCase {
  cellType: string;
  case: KnownAnswerCase | null;
  nDegs: number;
  error: string | null;
}

const fileSafe = (s: string): string => s.replace(/[^A-Za-z0-9._-]/g, "_");

function denseRows(m: CsrMatrix, rows: number[]): number[][] {
  return rows.map((i) => {
    const out = new Array<number>(m.nCols).fill(0);
    for (let q = m.indptr[i]!; q < m.indptr[i + 1]!; q++) out[m.indices[q]!] = m.data[q]!;
    return out;
  });
}

/** Shuffles (condition, sample) pairs among the cells of each donor, seeded. */
function permuteWithinDonor(
  rows: number[],
  donor: (string | null)[],
  labels: [string | null, string | null][],
  seedSource: string,
): [string | null, string | null][] {
  const rng = new Xoshiro128ss(seedFrom(seedSource).seed);
  const out = labels.slice();
  const byDonor = new Map<string, number[]>();
  rows.forEach((i, k) => {
    const d = donor[i] ?? "";
    byDonor.set(d, [...(byDonor.get(d) ?? []), k]);
  });
  for (const ks of [...byDonor.values()]) {
    const pool = ks.map((k) => labels[k]!);
    for (let i = pool.length - 1; i > 0; i--) {
      const j = rng.nextUint32() % (i + 1);
      [pool[i], pool[j]] = [pool[j]!, pool[i]!];
    }
    ks.forEach((k, i) => (out[k] = pool[i]!));
  }
  return out;
}

async function buildContrast(
  model: Model,
  path: string,
  cellType: string,
  permuted: boolean,
  workDir: string,
): Promise<CachedContrast> {
  const ad = await readAnnData(path, readLimits(null));
  const x = ad.matrices.get("X")!;
  const ct = columnValues(ad.obs, "cell_type");
  const condition = columnValues(ad.obs, "condition");
  const sample = columnValues(ad.obs, "sample");
  const donor = columnValues(ad.obs, "donor");
  const rows = ct.flatMap((v, i) => (v === cellType ? [i] : []));
  let labels = rows.map((i): [string | null, string | null] => [condition[i]!, sample[i]!]);
  if (permuted) labels = permuteWithinDonor(rows, donor, labels, `kang-null/${cellType}`);
  const hgnc = ad.var.columns.has("hgnc_symbol") ? columnValues(ad.var, "hgnc_symbol") : null;
  const file = join(workDir, `${fileSafe(cellType)}${permuted ? ".permuted" : ""}.h5ad`);
  await writeTestH5ad(file, {
    X: denseRows(x, rows),
    obs: {
      condition: labels.map((l) => l[0]),
      // After permutation a sample label no longer names one condition: make it per arm.
      sample: labels.map((l) => (permuted ? `${l[1]}/${l[0]}` : l[1])),
      donor: rows.map((i) => donor[i]!),
      cell_type: rows.map(() => cellType),
    },
    varNames: ad.var.index,
    var: hgnc ? { hgnc_symbol: hgnc.map((s, g) => s ?? ad.var.index[g]!) } : undefined,
    // The writer's categoricals use 8-bit codes, too narrow for a gene column.
    plainStrings: true,
  });
  const empty: CachedContrast = {
    format: CACHE_FORMAT,
    cellType,
    universe: [],
    degs: [],
    genes: [],
    controlCp10k: [],
    controlCounts: [],
    controlLibrary: 0,
    error: null,
  };
  let prepared: PreparedContrast | undefined;
  try {
    [prepared] = await prepareMergedDataset(file, { symbols: model.symbols, maxObsPerArm: 1000 });
    const c = contrastFromMerged(model, prepared!, "");
    return {
      ...empty,
      universe: c.universe,
      degs: c.mappedDegs,
      genes: c.degsTable.map((r) => [r.gene, r.log2FC, r.stat]),
      ...controlArm(prepared!),
      error: null,
    };
  } catch (err) {
    // A permuted contrast usually has no DEGs (no_degs_detected): keep its DE table anyway.
    const de = prepared
      ? runDifferentialExpression(prepared.pseudoBulk, { paired: prepared.design.paired })
      : null;
    return {
      ...empty,
      universe: de ? de.genes.map((r) => r.gene) : [],
      genes: de ? de.genes.map((r) => [r.gene, r.log2FC, r.stat]) : [],
      ...(prepared ? controlArm(prepared) : {}),
      error: err instanceof Error ? err.message : String(err),
    };
  }
}

/** Every gene of the count matrix with its control-arm mean CP10k and pooled reads, as a job sees them. */
function controlArm(
  p: PreparedContrast,
): Pick<CachedContrast, "controlCp10k" | "controlCounts" | "controlLibrary"> {
  const depth = controlDepthOf(p);
  return {
    controlCp10k: p.pseudoBulk.genes.map((g, i) => [g, p.meanCp10k.control[i]!]),
    controlCounts: p.pseudoBulk.genes.map((g) => depth.counts.get(g)!),
    controlLibrary: depth.librarySize,
  };
}

/** Every cell type of the Kang PBMC file as a case (or, with `permuted`, as a label-permuted null). */
export async function kangCases(
  model: Model,
  path: string,
  cacheDir: string,
  permuted = false,
): Promise<KangCase[]> {
  const key = createHash("sha256")
    .update(await readFile(path))
    .digest("hex")
    .slice(0, 16);
  const dir = join(cacheDir, "validate", "kang", key);
  await mkdir(dir, { recursive: true });
  const ad = await readAnnData(path, readLimits(null));
  const cellTypes = [
    ...new Set(columnValues(ad.obs, "cell_type").filter((v): v is string => v !== null)),
  ].sort();
  const out: KangCase[] = [];
  for (const cellType of cellTypes) {
    const cacheFile = join(dir, `${fileSafe(cellType)}${permuted ? ".permuted" : ""}.v${CACHE_FORMAT}.json`);
    let cached: CachedContrast;
    try {
      cached = CachedContrast.parse(JSON.parse(await readFile(cacheFile, "utf8")));
    } catch {
      const work = join(dir, "work");
      await mkdir(work, { recursive: true });
      cached = await buildContrast(model, path, cellType, permuted, work);
      await rm(work, { recursive: true, force: true });
      await writeFile(cacheFile, JSON.stringify(cached));
    }
    const logFC = new Map<string, number>();
    const stat = new Map<string, number>();
    const expr = new Map(cached.controlCp10k);
    for (const [g, fc, st] of cached.genes) {
      if (fc !== null && Number.isFinite(fc)) logFC.set(g, fc);
      if (st !== null && Number.isFinite(st)) stat.set(g, st);
    }
    const id = `kang_${fileSafe(cellType).toLowerCase()}${permuted ? "_permuted" : ""}`;
    out.push({
      cellType,
      nDegs: cached.degs.length,
      error: cached.error,
      // A permuted contrast is kept without DEGs: its DE statistics are the null input.
      case:
        cached.genes.length > 0 && (permuted || (cached.error === null && cached.degs.length > 0))
          ? {
              id,
              expected: KANG_EXPECTED,
              accepted: KANG_ACCEPTED,
              degs: cached.degs,
              universe: cached.universe,
              logFC,
              stat,
              meanCp10kControl: expr,
              controlDepth: {
                librarySize: cached.controlLibrary,
                counts: new Map(cached.controlCp10k.map(([g], i) => [g, cached.controlCounts[i]!])),
              },
            }
          : null,
    });
  }
  return out;
}
