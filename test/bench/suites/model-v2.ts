/**
 * Model v2 against model v1 (runner/docs/model-v2.md): target scoring on the same input, the
 * Kang CD14 known-answer DEG list with its DE table's fold changes, each version with its own
 * bundle (v2: hub penalty h = 0.5). v2 may cost at most 2× v1 per job; everything else in a
 * job (inputs, DE, causal analysis, rendering) is the same code for both versions.
 */
import { buildModelFromFiles } from "@causeway/runner/model";
import { SCORINGS, scoreTargets, scoreTargetsV2, V2_DEFAULTS } from "@causeway/runner/scoring";
import { caseInput } from "../../../runner/validation/src/calibration.ts";
import { readCase } from "../../../runner/validation/src/known-answers.ts";
import { DEFAULT_NETWORK, HGNC_DIR, KNOWN_ANSWERS_DIR } from "../../shared-data.ts";
import { timeIt, type BenchRow, type BenchSuite } from "../bench.ts";

export const suite: BenchSuite = {
  name: "model-v2",
  async run(): Promise<BenchRow[]> {
    const load = (v: "v1" | "v2") =>
      buildModelFromFiles({ networkPath: DEFAULT_NETWORK, hgncDir: HGNC_DIR, walk: SCORINGS[v].walk });
    const [v1Model, v2Model] = [await load("v1"), await load("v2")];
    const c = await readCase(KNOWN_ANSWERS_DIR, "kang2018_ifnb_cd14mono", v1Model.symbols);
    const rows: BenchRow[] = [];
    for (const R of [0, 1000]) {
      const v1Input = { ...caseInput(v1Model, c, c.degs), nRandomizations: R, seedSource: "bench/" };
      const v2Input = { ...caseInput(v2Model, c, c.degs), nRandomizations: R, seedSource: "bench/" };
      const t1 = await timeIt(() => scoreTargets(v1Input));
      const t2 = await timeIt(() => scoreTargetsV2({ ...v2Input, settings: V2_DEFAULTS }));
      rows.push({
        name: `target_id scoring, model v2, R = ${R}`,
        seconds: t2,
        reference: `target_id scoring, model v1, R = ${R}`,
        referenceSeconds: t1,
        note: `Kang CD14 known-answer DEG list (${c.degs.length} symbols), |S| ${v1Model.nSources}; goal ratio ≤ 2 (v2 at most 2× v1 per job); median of 3`,
      });
    }
    return rows;
  },
};
