/**
 * Science-core benchmarks (model.md §15.4): the influence bundle of the default network with
 * worker threads against one thread, target_id scoring with R = 1000 against R = 0 on the
 * Kang known-answer DEG list, and causal analysis for STAT1 against recomputing STAT1's
 * influence row without a bundle.
 */
import { readFile } from "node:fs/promises";
import { availableParallelism } from "node:os";
import { causalAnalysis } from "@causeway/runner/causal";
import {
  computeInfluence,
  iterationCount,
  parseNetwork,
  buildTransitionGraph,
  walkMatrices,
  V1_WALK,
} from "@causeway/runner/model";
import { defaultModel } from "@causeway/runner/testing";
import { scoreTargets, type ScoreTargetsInput } from "@causeway/runner/scoring";
import { readCase } from "../../../runner/validation/src/known-answers.ts";
import { DEFAULT_NETWORK, KNOWN_ANSWERS_DIR } from "../../shared-data.ts";
import { timeIt, type BenchRow, type BenchSuite } from "../bench.ts";

async function once(fn: () => Promise<unknown>): Promise<number> {
  const t0 = performance.now();
  await fn();
  return (performance.now() - t0) / 1000;
}

export const suite: BenchSuite = {
  name: "model",
  async run(): Promise<BenchRow[]> {
    const model = await defaultModel();
    const rows: BenchRow[] = [];

    const network = parseNetwork(await readFile(DEFAULT_NETWORK), model.symbols);
    const { q, r } = walkMatrices(buildTransitionGraph(network, V1_WALK), V1_WALK.alpha);
    const iterations = iterationCount(V1_WALK.alpha);
    const threads = Math.max(2, availableParallelism());
    // CPU time of the single-threaded run is reported too: on a shared machine it is less
    // sensitive to other processes than wall time.
    const cpu0 = process.cpuUsage();
    const single = await once(() => computeInfluence(q, r, { iterations, threads: 1 }));
    const cpu = process.cpuUsage(cpu0);
    const singleCpu = (cpu.user + cpu.system) / 1e6;
    const parallel = await once(() => computeInfluence(q, r, { iterations, threads }));
    rows.push({
      name: `influence bundle, ${threads} worker threads`,
      seconds: parallel,
      reference: "influence bundle, 1 thread",
      referenceSeconds: single,
      note: `V_P ${q.nRows}, V_R ${r.nCols}, nnz(Q)=${q.data.length} K=${iterations}; 256-column blocks; 1-thread CPU time ${singleCpu.toFixed(2)} s; goal ≤ 15 s single-threaded (§15.4); one run each`,
    });

    const c = await readCase(KNOWN_ANSWERS_DIR, "kang2018_ifnb_cd14mono", model.symbols);
    const input: ScoreTargetsInput = {
      model,
      universe: c.universe,
      degs: c.degs,
      degSignificanceFold: 1,
      minMeanExpression: 0.1,
      isDegSymbols: new Set(c.degs),
      nRandomizations: 0,
      seedSource: "bench/",
    };
    const r0 = await timeIt(() => scoreTargets(input));
    const r1000 = await timeIt(() => scoreTargets({ ...input, nRandomizations: 1000 }));
    rows.push({
      name: "target_id scoring, R = 1000",
      seconds: r1000,
      reference: "target_id scoring, R = 0",
      referenceSeconds: r0,
      note: `Kang CD14 known-answer DEGs: N=683, n=272, S ${model.nSources}; goals ≤ 3 s (R=0), ≤ 6 s (R=1000); median of 3`,
    });

    const causal = await timeIt(() =>
      causalAnalysis({ model, target: "STAT1", degs: c.degs, foldChanges: c.logFC }),
    );
    const row = await timeIt(() => model.influenceRow("STAT1"));
    rows.push({
      name: "causal analysis STAT1, defaults",
      seconds: causal,
      reference: "STAT1 influence row without a bundle (§6.7 vector iteration)",
      referenceSeconds: row,
      note: "impacted DEGs + bounded DFS + path rows; goal ≤ 0.5 s (§15.4); median of 3",
    });
    return rows;
  },
};
