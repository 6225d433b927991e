/**
 * `npm run validate` and the runner's command line agree: the q validate records for a case and
 * model version is the rank_percentage of the expected target in the target_scores.tsv that
 * `runner target-id --degs` (with `--de-table` when the case has one) writes for the same DEG
 * list, on the real default network, with the same libraries and PPI file. (For model v4, which
 * also ranks the proteins beyond the network, q is the same rank on the network's scale.) One
 * bare DEG list (a ChEA3 knockout whose own gene is in its list, so the leakage rule matters)
 * and one DEG list with a DE table.
 */
import { execFile } from "node:child_process";
import { mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  DEFAULT_NETWORK,
  HGNC_DIR,
  HURI_PAIRS,
  KNOWN_ANSWERS_DIR,
  REPO_ROOT,
  sharedData,
} from "../../../test/shared-data.ts";
import { parseTsv } from "@causeway/runner/artifacts";
import { ScoringVersion } from "@causeway/runner/scoring";
import { scoreCase } from "./benchmark.ts";
import { perturbationTypeOf } from "./perturbation-type.ts";
import { prepareCase, readCaseDir, type CaseFiles } from "./case-dir.ts";
import { defaultNetworkContext } from "./context.ts";
import type { PreparedCase, RankingMethod, ValidationContext } from "./methods/method.ts";
import { loadMethods } from "./methods/registry.ts";

const run = promisify(execFile);

let ctx: ValidationContext;
let methods: RankingMethod[];
let work: string;
const files = new Map<string, CaseFiles>();

beforeAll(async () => {
  // The command line finds the libraries beside the network's folder (model v3's evidence layers).
  ctx = await defaultNetworkContext({ librariesDir: sharedData("libraries"), ppiFiles: [HURI_PAIRS] });
  methods = await loadMethods(ctx);
  work = await mkdtemp(join(tmpdir(), "causeway-validate-cli-"));
  for (const dir of [sharedData("known_answers_v2"), KNOWN_ANSWERS_DIR])
    for (const f of await readCaseDir(dir)) files.set(f.id, f);
}, 600_000);
afterAll(async () => {
  if (work) await rm(work, { recursive: true, force: true });
});

/** The DE table as the leakage rule leaves it: the expected target's fold change blanked. */
function leakageTable(text: string, expected: string): string {
  const [header, ...rows] = text.split("\n");
  const cols = header!.split("\t");
  const fc = cols.indexOf("logFC");
  const curated = cols.indexOf("hgnc_symbol");
  return [
    header,
    ...rows.map((line) => {
      const cells = line.split("\t");
      const gene = curated >= 0 && cells[curated] && cells[curated] !== "NA" ? cells[curated] : cells[0];
      if (gene === expected) cells[fc] = "NA";
      return cells.join("\t");
    }),
  ].join("\n");
}

async function cliRankPercentage(
  c: PreparedCase,
  f: CaseFiles,
  version: ScoringVersion,
): Promise<{ rank: number; q: number; n: number }> {
  const dir = join(work, `${c.id}-${version}`);
  const degs = join(work, `${c.id}.degs.json`);
  // A case with up/down lists is given to the command line as its signed list (up ∪ down = degs.json).
  await writeFile(degs, JSON.stringify(c.signed ? { up: c.signed.up, down: c.signed.down } : c.degs));
  const args = [
    join(REPO_ROOT, "runner", "src", "cli.ts"),
    "target-id",
    "--network",
    DEFAULT_NETWORK,
    "--hgnc",
    HGNC_DIR,
    "--degs",
    degs,
    "--out",
    dir,
    "--model-version",
    version,
    // What validate passes v4 (the other versions ignore it): the case's type, as its submitter would give it.
    "--perturbation-type",
    perturbationTypeOf(f.direction),
    // Only the versions that read PPI layers (v4) take it.
    "--ppi",
    HURI_PAIRS,
  ];
  if (f.deTable !== null) {
    const table = join(work, `${c.id}.de_table.tsv`);
    await writeFile(table, leakageTable(f.deTable, c.expected));
    args.push("--de-table", table);
  }
  await run(process.execPath, args, { cwd: REPO_ROOT, maxBuffer: 1 << 24 });
  const { columns, rows } = parseTsv(await readFile(join(dir, "target_scores.tsv"), "utf8"));
  const id = columns.indexOf("id");
  const rank = columns.indexOf("rank");
  const rp = columns.indexOf("rank_percentage");
  const row = rows.find((r) => r[id] === `${c.expected}|PROTEIN`)!;
  return { rank: Number(row[rank]), q: Number(row[rp]), n: rows.length };
}

describe("validate's q equals the command line's rank_percentage for the same DEG list", () => {
  it.each([
    ["chea3_aire_ko_mouse_gse85_c881", "bare DEG list, genome-wide universe"],
    ["nichenet_bmp4", "DEG list with a DE table"],
  ])(
    "%s (%s), every model version",
    async (id) => {
      const f = files.get(id)!;
      const c = prepareCase(ctx.primary, f);
      // The leakage rule took the perturbed gene out of the list the command line gets.
      expect(c.degs).not.toContain(c.expected);
      const records = scoreCase(c, methods, [c.expected]);
      const cli = await Promise.all(ScoringVersion.options.map((v) => cliRankPercentage(c, f, v)));
      for (const [i, version] of ScoringVersion.options.entries()) {
        const rec = records.find((r) => r.method === version)!;
        expect(cli[i]!.n).toBe(rec.n_candidates);
        expect(cli[i]!.rank).toBe(rec.rank);
        const nNetwork = ctx.primary.nSources;
        if (cli[i]!.n > nNetwork) {
          expect(version).toBe("v4");
          expect(rec.q).toBeCloseTo(Math.min(1, cli[i]!.rank / (nNetwork - 1)), 12);
        } else {
          expect(cli[i]!.n).toBe(nNetwork);
          // target_scores.tsv prints 9 significant digits.
          expect(cli[i]!.q).toBeCloseTo(rec.q!, 8);
        }
        expect(rec.q_targets[c.expected]).toBeCloseTo(rec.q!, 6);
      }
    },
    600_000,
  );
});
