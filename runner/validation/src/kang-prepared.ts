/**
 * The Kang PBMC cell-type cases (kang-cases.ts: each cell type through the runner's own inputs
 * and DE, cached) as prepared cases: scored like the merged upload of that cell type, with the
 * leakage rule on (STAT1's gene out of the DEGs, its fold change and statistic dropped).
 */
import { caseInput } from "./calibration.ts";
import type { KnownAnswerCase } from "./known-answers.ts";
import type { PreparedCase } from "./methods/method.ts";

export const KANG_SOURCE = "kang_cell_type";

export function prepareKangCase(c: KnownAnswerCase): PreparedCase {
  const degs = c.degs.filter((d) => d !== c.expected);
  const log2fc = new Map(c.logFC);
  log2fc.delete(c.expected);
  const stat = new Map(c.stat ?? c.logFC);
  stat.delete(c.expected);
  return {
    id: c.id,
    source: KANG_SOURCE,
    splitGroup: "kang2018",
    expected: c.expected,
    accepted: c.accepted,
    degs,
    signed: null,
    stat,
    log2fc,
    universe: c.universe,
    scoringInput: (model) => ({ ...caseInput(model, c, degs), log2fc }),
  };
}
