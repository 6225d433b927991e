/**
 * `node runner/validation/src/features-v4.ts --cases DIR [--cases DIR2] [--out FILE]`: extracts,
 * once, model v4's per-candidate features (runner/src/scoring/v4/features.ts, the shipped code)
 * of every case of the given known-answer directories, leakage rule on, each case scored as a job
 * scores the same DEG list, and caches them (default ~/.cache/causeway-v4/features) for
 * fit-v4.ts. Benchmark code only.
 */
import { mkdir, writeFile } from "node:fs/promises";
import { homedir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { parseArgs } from "node:util";
import { HURI_PAIRS, sharedData } from "../../../test/shared-data.ts";
import {
  N_V4_FEATURES,
  SCORINGS,
  V4_FEATURES,
  scoreTargetsV3,
  v4Candidates,
  v4Features,
} from "@causeway/runner/scoring";
import { prepareCase, readCaseDir } from "./case-dir.ts";
import { defaultNetworkContext, evidenceLayersOf } from "./context.ts";
import { perturbationTypeOf } from "./perturbation-type.ts";

/** One case's record in the cache's index (features and v3 scores sit in the binary file). */
export interface FeatureCase {
  id: string;
  source: string;
  group: string;
  direction: string | null;
  perturbationType: string;
  expected: string;
  accepted: string[];
  /** Candidate index of the expected target, −1 when it is not a candidate. */
  target: number;
  nDegs: number;
  /** Set by fit-v4.ts from the case's files (listKindOf reads the same from a job's input). */
  listKind?: string;
}

export interface FeatureIndex {
  features: readonly string[];
  /** v4's candidates: the network's sources first, then the proteins only the layers name. */
  candidates: readonly string[];
  /** How many of the candidates are network sources. */
  nNetwork: number;
  cases: FeatureCase[];
}

export const DEFAULT_FEATURE_CACHE = join(homedir(), ".cache", "causeway-v4", "features");

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: { cases: { type: "string", multiple: true }, out: { type: "string" } },
  });
  const dirs = values.cases ?? [sharedData("known_answers_v2"), sharedData("known_answers_v3")];
  const out = resolve(values.out ?? DEFAULT_FEATURE_CACHE);
  const librariesDir = sharedData("libraries");
  const ctx = await defaultNetworkContext({ librariesDir, ppiFiles: [HURI_PAIRS] });
  const bundle = await ctx.bundle(SCORINGS.v4.walk);
  const model = bundle.withLayers(await evidenceLayersOf(ctx, bundle));
  const cands = v4Candidates(model);
  const nC = cands.n;
  const files = (await Promise.all(dirs.map((d) => readCaseDir(d)))).flat();
  const index: FeatureIndex = {
    features: V4_FEATURES,
    candidates: cands.symbols,
    nNetwork: cands.nNetwork,
    cases: [],
  };
  // Case-major: nC × F features, then nC v3 scores (NaN beyond the network: v3 does not rank them).
  const stride = nC * (N_V4_FEATURES + 1);
  const data = new Float32Array(files.length * stride);
  const t0 = performance.now();
  let k = 0;
  for (const f of files) {
    let c;
    try {
      c = prepareCase(ctx.primary, f);
      const input = c.scoringInput(model, "v3");
      const v3 = scoreTargetsV3(input);
      const x = v4Features(input, v3);
      const base = k * stride;
      data.set(x, base);
      data.fill(NaN, base + nC * N_V4_FEATURES, base + stride);
      for (const r of v3.rows)
        data[base + nC * N_V4_FEATURES + model.sourceIndex(r.id.slice(0, r.id.lastIndexOf("|")))] = r.score;
    } catch (err) {
      process.stderr.write(`\n${f.id}: skipped (${err instanceof Error ? err.message : String(err)})\n`);
      continue;
    }
    index.cases.push({
      id: c.id,
      source: c.source,
      group: c.splitGroup ?? c.id,
      direction: f.direction,
      perturbationType: perturbationTypeOf(f.direction),
      expected: c.expected,
      accepted: [...c.accepted],
      target: cands.indexOf(c.expected),
      nDegs: c.degs.length,
    });
    k++;
    if (k % 25 === 0)
      process.stderr.write(
        `\rfeatures of ${k}/${files.length} cases (${((performance.now() - t0) / 1000).toFixed(0)} s)`,
      );
  }
  await mkdir(dirname(join(out, "x")), { recursive: true });
  await writeFile(join(out, "index.json"), JSON.stringify(index));
  await writeFile(join(out, "features.f32"), new Uint8Array(data.buffer, 0, k * stride * 4));
  process.stderr.write(`\nwrote ${k} cases to ${out}\n`);
}

if (import.meta.url === `file://${process.argv[1]}`) await main();
