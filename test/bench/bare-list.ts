/**
 * What the model benchmarks score. The bare signed DEG list, beside the Kang case: a ChEA3 knockout's
 * up and down genes (known_answers_v2) on the genome-wide universe, as a job scores a submitted
 * list without a DE table.
 */
import { readFile } from "node:fs/promises";
import { join } from "node:path";
import type { Model } from "@causeway/runner/model";
import { caseInput } from "../../runner/validation/src/calibration.ts";
import { readCase } from "../../runner/validation/src/known-answers.ts";
import { KNOWN_ANSWERS_DIR, sharedData } from "../shared-data.ts";

const BARE_CASE = join(sharedData("known_answers_v2"), "chea3_ahr_ko_mouse_gse19411_c1468");

/** The list's genes and signs, resolved through `model`'s symbols; `input(m)` scores it with any model. */
export async function bareSignedList(model: Model) {
  const signed = JSON.parse(await readFile(join(BARE_CASE, "degs_signed.json"), "utf8")) as {
    up: string[];
    down: string[];
  };
  const norm = (xs: string[]) =>
    xs.map((x) => model.symbols.resolve(x)).filter((x): x is string => x !== null);
  const up = norm(signed.up);
  const down = norm(signed.down);
  const degs = [...new Set([...up, ...down])];
  const signs = new Map<string, number>([
    ...up.map((g) => [g, 1] as const),
    ...down.map((g) => [g, -1] as const),
  ]);
  return {
    degs,
    input: (m: Model) => ({
      model: m,
      universe: [...m.rnaSymbols],
      degs,
      degSignificanceFold: 1,
      minMeanExpression: 0.1,
      isDegSymbols: new Set(degs),
      nRandomizations: 0,
      seedSource: "bench/",
      log2fc: signs,
    }),
  };
}

/**
 * The two inputs every model benchmark scores: the Kang CD14 case (DEG list with its DE table)
 * and the bare signed list above, each built for whichever model scores it.
 */
export async function benchInputs(model: Model) {
  const c = await readCase(KNOWN_ANSWERS_DIR, "kang2018_ifnb_cd14mono", model.symbols);
  const bare = await bareSignedList(model);
  return [
    {
      label: "Kang CD14 DEG list + DE table",
      input: (m: Model) => ({ ...caseInput(m, c, c.degs), seedSource: "bench/" }),
    },
    { label: `bare signed DEG list (${bare.degs.length} genes, genome-wide universe)`, input: bare.input },
  ];
}
