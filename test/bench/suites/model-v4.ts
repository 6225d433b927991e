/**
 * Model v4 against model v3 (runner/docs/model-v4.md): target scoring on the same input and the
 * same bundle (v4 uses v3's walk), v3 with the shared gene-set libraries, v4 with them and the
 * HuRI PPI layer (so it also ranks the proteins beyond the network, about 2.5× v3's candidates).
 * Two inputs: the Kang CD14 known-answer DEG list with its DE table, and a bare signed DEG list
 * (a ChEA3 knockout case) on the genome-wide universe. A v4 job may cost at most 2× a v3 job;
 * everything else in a job is the same code for both, so the scoring ratio bounds the job's.
 */
import { readFile } from "node:fs/promises";
import { loadLayersFromDir, pairsLayerName, parsePairs } from "@causeway/runner/libraries";
import { buildModelFromFiles } from "@causeway/runner/model";
import { SCORINGS, scoreTargetsV3, scoreTargetsV4, v4Candidates } from "@causeway/runner/scoring";
import { DEFAULT_NETWORK, HGNC_DIR, HURI_PAIRS, sharedData } from "../../shared-data.ts";
import { benchInputs } from "../bare-list.ts";
import { timeIt, type BenchRow, type BenchSuite } from "../bench.ts";

export const suite: BenchSuite = {
  name: "model-v4",
  async run(): Promise<BenchRow[]> {
    const bundle = await buildModelFromFiles({
      networkPath: DEFAULT_NETWORK,
      hgncDir: HGNC_DIR,
      walk: SCORINGS.v4.walk,
    });
    const libraries = await loadLayersFromDir(sharedData("libraries"), bundle.symbols);
    const pairs = await readFile(HURI_PAIRS);
    let ppi = parsePairs(pairs, pairsLayerName(HURI_PAIRS), bundle.symbols);
    const tPpi = await timeIt(() => {
      ppi = parsePairs(pairs, pairsLayerName(HURI_PAIRS), bundle.symbols);
    });
    const v3Model = bundle.withLayers(libraries);
    const v4Model = bundle.withLayers([...libraries, ppi]);
    const inputs = (await benchInputs(bundle)).map((i) => ({
      label: i.label,
      v3: i.input(v3Model),
      v4: i.input(v4Model),
    }));
    const rows: BenchRow[] = [];
    const nCandidates = v4Candidates(v4Model).n;
    for (const i of inputs) {
      // Per-model caches (layer indices, network classes, candidates) are filled once per runner.
      scoreTargetsV3(i.v3);
      scoreTargetsV4(i.v4);
      const t3 = await timeIt(() => scoreTargetsV3(i.v3));
      const t4 = await timeIt(() => scoreTargetsV4(i.v4));
      rows.push({
        name: `target_id scoring, model v4, ${i.label}`,
        seconds: t4,
        reference: `target_id scoring, model v3, ${i.label}`,
        referenceSeconds: t3,
        note: `v3 ranks ${v3Model.nSources} candidates, v4 ${nCandidates} (the network's and the layers' others); goal ratio ≤ 2; median of 3`,
      });
    }
    rows.push({
      name: "model v4: parse the PPI layer (once per model load)",
      seconds: tPpi,
      reference: "none (once per runner process)",
      referenceSeconds: null,
      note: `HuRI, ${ppi.sets.size} proteins`,
    });
    return rows;
  },
};
