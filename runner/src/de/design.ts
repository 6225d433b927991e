import type { Design, PseudoBulkSample } from "./types.ts";
import { DeInputError } from "./errors.ts";

/**
 * Builds the model matrix of model.md §5.4 with treatment coding as R's `model.matrix` does:
 * intercept, then one indicator per non-reference donor (donors in byte order, the first is
 * the reference), then the perturbed-arm indicator. Keeping the condition last and the donor
 * order fixed makes results reproducible and comparable with DESeq2's `~ donor + condition`.
 */
export function buildDesign(samples: readonly PseudoBulkSample[], paired: boolean): Design {
  const m = samples.length;
  const columns = ["Intercept"];
  let donors: string[] = [];
  if (paired) {
    if (samples.some((s) => s.donor === null))
      throw new DeInputError("a paired design needs a donor for every sample");
    donors = [...new Set(samples.map((s) => s.donor as string))].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
    for (const d of donors.slice(1)) columns.push(`donor_${d}`);
  }
  columns.push("condition_perturbed");
  const p = columns.length;
  const x = new Float64Array(m * p);
  samples.forEach((s, j) => {
    x[j * p] = 1;
    if (paired) {
      const k = donors.indexOf(s.donor as string);
      if (k > 0) x[j * p + k] = 1;
    }
    x[j * p + p - 1] = s.arm;
  });
  // Cells are distinct design rows, as DESeq2's modelMatrixGroups / nOrMoreInCell define them.
  const cellKeys = new Map<string, number>();
  const cellOfSample = new Int32Array(m);
  for (let j = 0; j < m; j++) {
    const key = Array.from(x.subarray(j * p, (j + 1) * p)).join(",");
    let c = cellKeys.get(key);
    if (c === undefined) {
      c = cellKeys.size;
      cellKeys.set(key, c);
    }
    cellOfSample[j] = c;
  }
  return {
    x,
    m,
    p,
    columns,
    conditionColumn: p - 1,
    formula: paired ? "~ donor + condition" : "~ condition",
    cellOfSample,
    nCells: cellKeys.size,
  };
}
