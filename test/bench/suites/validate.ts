/**
 * `npm run validate`'s cost per case: every ranking method (each model version of the scoring
 * registry and the baselines) on the same prepared cases, against the reference of one model v1
 * scoring of each case, on a spread of 30 of the 531 cases of known_answers_v2 (every 18th). The
 * goal is the whole set within 10 minutes on 2 cores: the second row projects the measured
 * per-case CPU time (one process and thread, the bundles loaded once) onto 531 cases, against
 * that budget.
 */
import { readCaseDir, prepareCase } from "../../../runner/validation/src/case-dir.ts";
import { scoreCase } from "../../../runner/validation/src/benchmark.ts";
import { defaultNetworkContext } from "../../../runner/validation/src/context.ts";
import { loadMethods } from "../../../runner/validation/src/methods/registry.ts";
import { scoringOf } from "@causeway/runner/scoring";
import { sharedData } from "../../shared-data.ts";
import { timeIt, type BenchRow, type BenchSuite } from "../bench.ts";

const ALL_CASES = 531;
const BUDGET_SECONDS = 600;

export const suite: BenchSuite = {
  name: "validate",
  async run(): Promise<BenchRow[]> {
    const ctx = await defaultNetworkContext();
    const methods = await loadMethods(ctx);
    const files = (await readCaseDir(sharedData("known_answers_v2"))).filter((_, i) => i % 18 === 0);
    const targets = [...new Set(files.map((f) => f.expected))];
    let cpu = 0;
    const all = await timeIt(() => {
      const c0 = process.cpuUsage();
      for (const f of files) scoreCase(prepareCase(ctx.primary, f), methods, targets);
      const c = process.cpuUsage(c0);
      cpu = (c.user + c.system) / 1e6;
    }, 1);
    const v1 = await timeIt(() => {
      for (const f of files)
        scoringOf("v1").score(prepareCase(ctx.primary, f).scoringInput(ctx.primary, "v1"));
    }, 1);
    const perCase = all / files.length;
    // One thread does the work, so its CPU time is the wall time on an idle machine; the wall
    // time of a shared machine says more about its other tenants.
    const projected = (cpu / files.length) * ALL_CASES;
    const names = methods.map((m) => m.name).join(", ");
    return [
      {
        name: `validate, every method (${names}), per case`,
        seconds: perCase,
        reference: "model v1 scoring of the same case",
        referenceSeconds: v1 / files.length,
        note: `${files.length} cases of known_answers_v2 (every 18th), genome-wide universe, bundles loaded once`,
      },
      {
        name: `validate, ${ALL_CASES} cases (projected from the per-case CPU time)`,
        seconds: projected,
        reference: "budget: 10 minutes on 2 cores",
        referenceSeconds: BUDGET_SECONDS,
        figure: {
          measured: `${projected.toFixed(0)} s`,
          reference: `${BUDGET_SECONDS} s`,
          ratio: projected / BUDGET_SECONDS,
        },
        note: "goal ratio ≤ 1; excludes the one-off bundle load (cached on disk)",
      },
    ];
  },
};
