/**
 * `node runner/validation/src/time-v4.ts [--cases DIR]... [--n N]`: what a v4 scoring costs
 * against a v3 scoring of the same job input (same bundle and layers; v4 computes v3 inside),
 * over the first N cases of each directory, alternating the two so machine load hits both alike.
 * Prints the total seconds of each and their ratio. Benchmark code only.
 */
import { parseArgs } from "node:util";
import { sharedData } from "../../../test/shared-data.ts";
import { loadLayersFromDir } from "@causeway/runner/libraries";
import { SCORINGS, scoreTargetsV3, scoreTargetsV4 } from "@causeway/runner/scoring";
import { prepareCase, readCaseDir } from "./case-dir.ts";
import { defaultNetworkContext } from "./context.ts";

const { values } = parseArgs({
  options: { cases: { type: "string", multiple: true }, n: { type: "string" } },
});
const dirs = values.cases ?? [sharedData("known_answers_v2"), sharedData("known_answers_v3")];
const n = Number(values.n ?? 10);
const librariesDir = sharedData("libraries");
const ctx = await defaultNetworkContext({ librariesDir });
const bundle = await ctx.bundle(SCORINGS.v4.walk);
const model = bundle.withLayers(await loadLayersFromDir(librariesDir, bundle.symbols));
let t3 = 0;
let t4 = 0;
for (const dir of dirs) {
  const files = (await readCaseDir(dir)).slice(0, n);
  for (const f of files) {
    const c = prepareCase(ctx.primary, f);
    const input3 = c.scoringInput(model, "v3");
    const input4 = c.scoringInput(model, "v4");
    scoreTargetsV3(input3); // warm-up: per-model caches (layer indices, source classes)
    scoreTargetsV4(input4);
    let t = performance.now();
    scoreTargetsV3(input3);
    t3 += performance.now() - t;
    t = performance.now();
    scoreTargetsV4(input4);
    t4 += performance.now() - t;
  }
}
console.log(`v3 ${(t3 / 1000).toFixed(2)} s, v4 ${(t4 / 1000).toFixed(2)} s, ratio ${(t4 / t3).toFixed(2)}`);
