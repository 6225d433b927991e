/**
 * Model v3 against model v1 (runner/docs/model-v3.md): target scoring on the same input, each
 * version with its own bundle (v3: the v2 walk, h = 0.5, plus the shared gene-set libraries as
 * evidence layers). Two inputs: the Kang CD14 known-answer DEG list with its DE table, and a
 * bare signed DEG list (a ChEA3 knockout case) on the genome-wide universe. v3 may cost at most
 * 2× v1 per job; everything else in a job is the same code for every version. Layers are parsed
 * once per model load (timed separately), as a runner does.
 */
import { loadLayersFromDir } from "@causeway/runner/libraries";
import { buildModelFromFiles } from "@causeway/runner/model";
import { SCORINGS, scoreTargets, scoreTargetsV3 } from "@causeway/runner/scoring";
import { DEFAULT_NETWORK, HGNC_DIR, sharedData } from "../../shared-data.ts";
import { benchInputs } from "../bare-list.ts";
import { timeIt, type BenchRow, type BenchSuite } from "../bench.ts";

export const suite: BenchSuite = {
  name: "model-v3",
  async run(): Promise<BenchRow[]> {
    const load = (v: "v1" | "v3") =>
      buildModelFromFiles({ networkPath: DEFAULT_NETWORK, hgncDir: HGNC_DIR, walk: SCORINGS[v].walk });
    const v1Model = await load("v1");
    const v3Bundle = await load("v3");
    let layers = await loadLayersFromDir(sharedData("libraries"), v3Bundle.symbols);
    const tLayers = await timeIt(async () => {
      layers = await loadLayersFromDir(sharedData("libraries"), v3Bundle.symbols);
    });
    const v3Model = v3Bundle.withLayers(layers);
    const rows: BenchRow[] = [];
    const inputs = (await benchInputs(v1Model)).map((i) => ({
      label: i.label,
      v1: i.input(v1Model),
      v3: i.input(v3Model),
    }));
    for (const i of inputs) {
      scoreTargetsV3(i.v3); // resolves the layers to the model's indices, once per model as in a runner
      const t1 = await timeIt(() => scoreTargets(i.v1));
      const t3 = await timeIt(() => scoreTargetsV3(i.v3));
      rows.push({
        name: `target_id scoring, model v3, ${i.label}`,
        seconds: t3,
        reference: `target_id scoring, model v1, ${i.label}`,
        referenceSeconds: t1,
        note: `|S| ${v1Model.nSources}, ${layers.length} evidence layers; goal ratio ≤ 2 (v3 at most 2× v1 per job); median of 3`,
      });
    }
    rows.push({
      name: "model v3: parse the evidence layers (once per model load)",
      seconds: tLayers,
      reference: "none (once per runner process)",
      referenceSeconds: null,
      note: `${layers.length} GMT files of the shared libraries`,
    });
    return rows;
  },
};
