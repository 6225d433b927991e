import type { DesignOptions, PseudoBulk } from "./types.ts";
import { runDifferentialExpression } from "./run.ts";

/** log2 fold changes of pooled counts, per gene of the matrix (model.md §5.9). */
export interface PooledFoldChanges {
  genes: string[];
  log2FC: Float64Array;
}

/**
 * `log2((CPM_pert + 1) / (CPM_ctrl + 1))` with `CPM_arm = 10⁶ Σ_arm K_g / Σ_arm L`. `L` is the
 * library size of model.md §5.9: pass the arms' full totals (before symbol mapping) as
 * `libraryByArm`; without it the totals over the matrix's genes are used. Used when an arm
 * has fewer than two samples, where no dispersion can be estimated.
 */
export function pooledLog2FoldChanges(
  pb: PseudoBulk,
  libraryByArm?: readonly [number, number],
): PooledFoldChanges {
  const m = pb.samples.length;
  const nGenes = pb.genes.length;
  const geneSum = [new Float64Array(nGenes), new Float64Array(nGenes)] as const;
  const lib = [0, 0];
  for (let g = 0; g < nGenes; g++)
    for (let j = 0; j < m; j++) {
      const arm = pb.samples[j]!.arm;
      const k = pb.counts[g * m + j]!;
      geneSum[arm][g]! += k;
      lib[arm]! += k;
    }
  if (libraryByArm) {
    lib[0] = libraryByArm[0];
    lib[1] = libraryByArm[1];
  }
  if (!(lib[0]! > 0 && lib[1]! > 0)) throw new RangeError("each arm needs a positive total count");
  const log2FC = new Float64Array(nGenes);
  for (let g = 0; g < nGenes; g++) {
    const ctrl = (1e6 * geneSum[0][g]!) / lib[0]!;
    const pert = (1e6 * geneSum[1][g]!) / lib[1]!;
    log2FC[g] = Math.log2((pert + 1) / (ctrl + 1));
  }
  return { genes: [...pb.genes], log2FC };
}

/** Fold changes of a split upload and how they were computed (`logfc_method`). */
export interface SplitFoldChanges {
  method: "glm" | "pooled_cpm";
  /** Per gene symbol; genes without an estimate (all-zero counts under `glm`) are absent. */
  log2FC: Map<string, number>;
}

/**
 * Fold changes for split uploads (model.md §5.9): the GLM of §5.4–5.6 when both arms have at
 * least two samples, otherwise pooled CPM. The GLM runs without the expression filter because
 * the supplied list, not this test, defines the DEGs, and each of them needs a fold change.
 */
export function foldChangesForSplitUpload(pb: PseudoBulk, design: DesignOptions): SplitFoldChanges {
  const armSizes = [0, 0];
  for (const s of pb.samples) armSizes[s.arm]!++;
  if (armSizes[0]! >= 2 && armSizes[1]! >= 2) {
    const res = runDifferentialExpression(pb, { ...design, geneFilter: "none" });
    return { method: "glm", log2FC: new Map(res.genes.map((r) => [r.gene, r.log2FC])) };
  }
  const pooled = pooledLog2FoldChanges(pb);
  return { method: "pooled_cpm", log2FC: new Map(pooled.genes.map((g, i) => [g, pooled.log2FC[i]!])) };
}
