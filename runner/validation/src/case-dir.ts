/**
 * A directory of known-answer cases (the layout of shared/data/known_answers and
 * known_answers_v2): `cases.tsv` lists the ids; each case folder has `case.json`, `degs.json`,
 * optionally `degs_signed.json` ({"up": [...], "down": [...]}) and `de_table.tsv` or
 * `de_table.tsv.gz`. Each case is prepared as the product would take its DEG list (the command
 * line's `target-id --degs [--de-table]`), with the leakage rule of model.md §16.1 applied.
 */
import { existsSync } from "node:fs";
import { readFile } from "node:fs/promises";
import { basename, join, resolve } from "node:path";
import { gunzipSync } from "node:zlib";
import { z } from "zod";
import { PredictionParams } from "@causeway/contract";
import { parseTsv } from "@causeway/runner/artifacts";
import { normalizeDegs } from "@causeway/runner/inputs";
import { contrastFromDegList, readDeTable, type DeTable, scoringInputOf } from "@causeway/runner/jobs";
import type { Model } from "@causeway/runner/model";
import type { SymbolTable } from "@causeway/runner/symbols";
import { statOf } from "./known-answers.ts";
import { perturbationTypeOf } from "./perturbation-type.ts";
import type { PreparedCase } from "./methods/method.ts";

const CaseJson = z.object({
  id: z.string(),
  expected_target: z.string(),
  accepted_targets: z.array(z.string()),
  source: z.string().optional(),
  split_group: z.string().nullable().optional(),
  direction: z.string().nullable().optional(),
});
const SignedDegs = z.object({ up: z.array(z.string()), down: z.array(z.string()) });

/** A case as read from its folder, before any model-dependent preparation. */
export interface CaseFiles {
  id: string;
  source: string;
  splitGroup: string | null;
  /** What was done to the cells (`direction` of case.json or cases.tsv: knockdown, stimulation, ...), or null. */
  direction: string | null;
  expected: string;
  accepted: string[];
  degsJson: string;
  signed: { up: string[]; down: string[] } | null;
  /** The DE table's text (gunzipped), or null. */
  deTable: string | null;
}

const symbolOf = (id: string): string => (id.includes("|") ? id.slice(0, id.lastIndexOf("|")) : id);

/** Reads every case listed in DIR/cases.tsv, in file order. */
export async function readCaseDir(dir: string): Promise<CaseFiles[]> {
  const root = resolve(dir);
  const { columns, rows } = parseTsv(await readFile(join(root, "cases.tsv"), "utf8"));
  const idCol = columns.indexOf("id");
  const sourceCol = columns.indexOf("source");
  const directionCol = columns.indexOf("direction");
  if (idCol < 0) throw new Error(`${join(dir, "cases.tsv")}: no id column`);
  return Promise.all(
    rows.map(async (r) => {
      const caseDir = join(root, r[idCol]!);
      const meta = CaseJson.parse(JSON.parse(await readFile(join(caseDir, "case.json"), "utf8")));
      const signedPath = join(caseDir, "degs_signed.json");
      const signed = existsSync(signedPath)
        ? SignedDegs.parse(JSON.parse(await readFile(signedPath, "utf8")))
        : null;
      return {
        id: meta.id,
        source: meta.source ?? (sourceCol >= 0 ? r[sourceCol] : undefined) ?? basename(root),
        splitGroup: meta.split_group ?? null,
        direction: meta.direction ?? (directionCol >= 0 ? r[directionCol] || null : null) ?? null,
        expected: symbolOf(meta.expected_target),
        accepted: meta.accepted_targets.map(symbolOf),
        degsJson: await readFile(join(caseDir, "degs.json"), "utf8"),
        signed,
        deTable: await readTable(caseDir),
      };
    }),
  );
}

async function readTable(caseDir: string): Promise<string | null> {
  const plain = join(caseDir, "de_table.tsv");
  if (existsSync(plain)) return readFile(plain, "utf8");
  const gz = join(caseDir, "de_table.tsv.gz");
  return existsSync(gz) ? gunzipSync(await readFile(gz)).toString("utf8") : null;
}

/** The job parameters every case is scored with: the product defaults (f = 1, R = 0). */
export const VALIDATE_PARAMS = PredictionParams.parse({});

/**
 * Normalizes a list like the DEG-list input of a job (inputs/genes.ts) and drops the expected
 * target's own gene (§16.1: a knock-down almost always lowers its own mRNA).
 */
function leakageControlled(list: readonly string[], symbols: SymbolTable, expected: string): string[] {
  if (list.length === 0) return [];
  return normalizeDegs([...list], symbols).symbols.filter((g) => g !== expected);
}

/** +1 for up, −1 for down, 0 for a gene in both lists (the command line's reading of a signed list). */
function signsOf(signed: { up: readonly string[]; down: readonly string[] }): Map<string, number> {
  const signs = new Map<string, number>();
  for (const g of signed.up) signs.set(g, 1);
  for (const g of signed.down) signs.set(g, signs.has(g) ? 0 : -1);
  return signs;
}

/**
 * The case as the command line takes the same DEG list: `contrastFromDegList` (a bare list gets
 * the genome-wide universe; a table gives the universe and fold changes). Under the leakage rule
 * the expected target's gene also loses its table fold change and statistic (it stays in the
 * universe: it was measured).
 */
export function prepareCase(model: Model, files: CaseFiles): PreparedCase {
  const { symbols } = model;
  const expected = symbols.resolve(files.expected) ?? files.expected;
  const degs = normalizeDegs(files.degsJson, symbols).symbols.filter((g) => g !== expected);
  let table: DeTable | null = null;
  let stat: Map<string, number> | null = null;
  if (files.deTable !== null) {
    table = readDeTable(files.deTable, symbols);
    const i = table.genes.indexOf(expected);
    if (i >= 0) {
      table.logFC[i] = null;
      if (table.stat) table.stat[i] = null;
    }
    stat = statOf(files.deTable, symbols);
    stat.delete(expected);
  }
  const signed = files.signed
    ? {
        up: leakageControlled(files.signed.up, symbols, expected),
        down: leakageControlled(files.signed.down, symbols, expected),
      }
    : null;
  // A signed list is scored as the command line scores the same {"up", "down"} file.
  const signs = signed ? signsOf(signed) : undefined;
  const contrast = contrastFromDegList(model, degs, table, signs);
  // The type a submitter who knows the experiment would give (only v4 reads it).
  const params = { ...VALIDATE_PARAMS, perturbation_type: perturbationTypeOf(files.direction) };
  const log2fc = new Map<string, number>();
  for (const [g, v] of contrast.log2fc) if (v !== null && Number.isFinite(v)) log2fc.set(g, v);
  return {
    id: files.id,
    source: files.source,
    splitGroup: files.splitGroup,
    expected,
    accepted: files.accepted.map((a) => symbols.resolve(a) ?? a),
    degs,
    signed,
    stat,
    log2fc,
    universe: contrast.universe,
    scoringInput: (m, version) =>
      scoringInputOf({
        model: m,
        contrast,
        params,
        scoring: version,
        predictionId: "command-line",
        jobType: "target_id",
      }),
  };
}
