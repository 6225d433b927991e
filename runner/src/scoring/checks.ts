/** The failure checks of model.md §7.1. */
import { JobFailure } from "@causeway/contract";

/** Minimum number of mapped DEGs per job type (§7.1). */
export const MIN_MAPPED_DEGS = { target_id: 5, target_validation: 1 } as const;

/** Throws too_few_mapped_degs or degs_cover_universe when the DEG set cannot be scored. */
export function checkMappedDegs(n: number, N: number, jobType: keyof typeof MIN_MAPPED_DEGS): void {
  const min = MIN_MAPPED_DEGS[jobType];
  if (n < min) {
    throw new JobFailure(
      "too_few_mapped_degs",
      `Only ${n} DEG${n === 1 ? "" : "s"} could be mapped to genes regulated in the interactome; at least ${min} ${min === 1 ? "is" : "are"} needed. Supply more DEGs or check that they are human gene symbols.`,
      `n=${n} N=${N} min=${min}`,
    );
  }
  if (n >= N) {
    throw new JobFailure(
      "degs_cover_universe",
      "Every gene of the background universe is a DEG, so there is no background to compare with. Use a stricter DEG rule or supply expression data for more genes.",
      `n=${n} N=${N}`,
    );
  }
}
