import { JobFailure } from "@causeway/contract";
import type { DeResult } from "./types.ts";

/** The applied rule, recorded as `deg_rule` in the run metadata (model.md §5.8). */
export type DegRule = "padj<0.05,|lfc|>=1" | "padj<0.05,|lfc|>=0.5";

export interface DegRuleResult {
  /** Up- and down-regulated genes together, in the order of the DE table. */
  degs: string[];
  rule: DegRule;
  /** More than 1000 DEGs: allowed, flagged `large_deg_set`. */
  largeDegSet: boolean;
}

const PADJ = 0.05;
/** NicheNet wants at least ~20 genes in a DEG set, hence the relaxed rule below that. */
const MIN_DEGS_BEFORE_RELAXING = 20;
const LARGE_DEG_SET = 1000;

function select(result: DeResult, minAbsLfc: number): string[] {
  return result.genes
    .filter((r) => r.padj !== null && r.padj < PADJ && Math.abs(r.log2FC) >= minAbsLfc)
    .map((r) => r.gene);
}

/**
 * DEG rule of merged uploads (model.md §5.8): `padj < 0.05` and `|log2FC| ≥ 1`, relaxed to
 * `|log2FC| ≥ 0.5` when fewer than 20 genes pass.
 * @throws JobFailure `no_degs_detected` when no gene passes either rule.
 */
export function applyDegRule(result: DeResult): DegRuleResult {
  let rule: DegRule = "padj<0.05,|lfc|>=1";
  let degs = select(result, 1);
  if (degs.length < MIN_DEGS_BEFORE_RELAXING) {
    rule = "padj<0.05,|lfc|>=0.5";
    degs = select(result, 0.5);
  }
  if (degs.length === 0) {
    const tested = result.genes.length;
    const minPadj = Math.min(...result.genes.map((r) => r.padj ?? 1));
    throw new JobFailure(
      "no_degs_detected",
      `No gene is differentially expressed between the perturbed and the control samples: none of the ${tested} tested genes has an adjusted p-value below 0.05 with an absolute log2 fold change of at least 0.5. ` +
        "Target identification needs a set of differentially expressed genes, so there is nothing to explain. " +
        "Check that the condition labels are right and that each condition has enough biological replicates (more samples per condition give the test more power), or upload your own DEG list with the split-upload form.",
      `tested=${tested} min_padj=${Number.isFinite(minPadj) ? minPadj : "NA"} design=${result.design.formula}`,
    );
  }
  return { degs, rule, largeDegSet: degs.length > LARGE_DEG_SET };
}
