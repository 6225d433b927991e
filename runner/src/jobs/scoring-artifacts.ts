/**
 * Artifacts of the target-score part of a result set (model.md §13): degs.tsv,
 * mapped_degs.json, target_scores.tsv, the source-influence matrix and, with
 * randomizations, randomization_null.tsv.
 */
import { ARTIFACTS, BASE_SCORE_COLUMNS } from "@causeway/contract";
import { encodeNpyFloat32 } from "../artifacts/npy.ts";
import { toTsv } from "../artifacts/tsv.ts";
import type { ScoreTargetsResult } from "../scoring/index.ts";
import type { ArtifactWriter } from "./artifact-writer.ts";
import type { Contrast } from "./contrast.ts";

const DEGS_COLUMNS = [
  "gene",
  "base_mean",
  "log2FC",
  "lfcSE",
  "stat",
  "pvalue",
  "padj",
  "mean_cp10k_ctrl",
  "mean_cp10k_pert",
  "is_deg",
  "in_model",
  "in_universe",
] as const;

const NULL_COLUMNS = ["id", "null_mean_k", "null_sd_k", "n_null_ge", "strata"] as const;

export async function writeDegArtifacts(out: ArtifactWriter, c: Contrast): Promise<void> {
  await out.write(c.prefix + ARTIFACTS.degsTable, toTsv(DEGS_COLUMNS, c.degsTable));
  await out.writeJson(c.prefix + ARTIFACTS.mappedDegs, c.mappedDegs);
}

export async function writeScoreArtifacts(
  out: ArtifactWriter,
  c: Contrast,
  scores: ScoreTargetsResult,
): Promise<void> {
  const columns = [...BASE_SCORE_COLUMNS, ...(scores.extraColumns ?? [])];
  await out.write(c.prefix + ARTIFACTS.targetScores, toTsv(columns, scores.rows));
  const m = scores.sourceInfluence;
  await out.write(
    c.prefix + ARTIFACTS.sourceInfluenceMatrix,
    encodeNpyFloat32({ rows: m.rowIds.length, cols: m.columnIds.length, data: m.data }),
  );
  await out.writeJson(c.prefix + ARTIFACTS.sourceInfluenceIds, {
    row_ids: m.rowIds,
    column_ids: m.columnIds,
  });
  if (scores.randomizationNull) {
    await out.write(c.prefix + ARTIFACTS.randomizationNull, toTsv(NULL_COLUMNS, scores.randomizationNull));
  }
}

/** Pseudo-bulk counts (gene × sample, gzipped) and the sample table. */
export async function writePseudoBulkArtifacts(out: ArtifactWriter, c: Contrast): Promise<void> {
  const p = c.prepared;
  if (!p) return;
  const { gzipSync } = await import("node:zlib");
  const pb = p.pseudoBulk;
  const m = pb.samples.length;
  const lines = [["gene", ...pb.samples.map((s) => s.id)].join("\t")];
  pb.genes.forEach((g, gi) => {
    const row = [g];
    for (let j = 0; j < m; j++) row.push(String(pb.counts[gi * m + j]));
    lines.push(row.join("\t"));
  });
  await out.write(c.prefix + ARTIFACTS.pseudobulkCounts, gzipSync(lines.join("\n") + "\n"));
  const sizeFactors = new Map((c.de?.samples ?? []).map((s, i) => [s, c.de!.sizeFactors[i]!]));
  const samples = pb.samples.map((s) => ({
    sample: s.id,
    arm: s.arm === 0 ? "control" : "perturbed",
    donor: s.donor,
    n_cells: s.nCells,
    library_size: s.librarySize,
    size_factor: sizeFactors.get(s.id) ?? null,
  }));
  await out.write(
    c.prefix + ARTIFACTS.pseudobulkSamples,
    toTsv(["sample", "arm", "donor", "n_cells", "library_size", "size_factor"], samples),
  );
}
