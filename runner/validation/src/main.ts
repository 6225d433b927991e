/**
 * `npm run validate [-- --cases DIR]... [--out OUT] [--libraries DIR] [--ppi FILE]...`: the benchmark of
 * model.md §16 on the default network. Every case of each DIR (the layout of
 * shared/data/known_answers: cases.tsv, case folders with degs.json, optional degs_signed.json
 * and de_table.tsv[.gz]) is ranked by every model version of the scoring registry and every
 * method of methods/registry.ts, with the shipped settings (nothing is chosen here) and the
 * leakage rule of §16.1 on. Without --cases: the shared known answers, one IFN-β case per Kang
 * PBMC cell type (runner DE, cached) and known_answers_v2.
 *
 * Writes OUT/cases.json (one record per case and method), OUT/summary.json, OUT/validate.png,
 * and prints the summary tables overall and per source. Settings of model v2 were chosen by
 * tune-v2.ts (cross-validation over the shared cases; runner/docs/model-v2.md).
 */
import { existsSync } from "node:fs";
import { mkdir, writeFile } from "node:fs/promises";
import { join, resolve } from "node:path";
import { parseArgs } from "node:util";
import { HURI_PAIRS, KANG_DIR, KNOWN_ANSWERS_DIR, sharedData } from "../../../test/shared-data.ts";
import { defaultCacheDir, type Model } from "@causeway/runner/model";
import { DEFAULT_SCORING_VERSION } from "@causeway/runner/scoring";
import { scoreCase, type CaseRecord } from "./benchmark.ts";
import { prepareCase, readCaseDir } from "./case-dir.ts";
import { renderDistributionChart } from "./distribution-chart.ts";
import { kangCases } from "./kang-cases.ts";
import { prepareKangCase } from "./kang-prepared.ts";
import { loadMethods } from "./methods/registry.ts";
import type { PreparedCase } from "./methods/method.ts";
import { defaultNetworkContext } from "./context.ts";
import { summarizeMethod, summaryTable, type CaseTruth, type MethodSummary } from "./summary.ts";

const KNOWN_ANSWERS_V2_DIR = sharedData("known_answers_v2");

/** A case to score, prepared only when its turn comes (a prepared case holds a genome-wide contrast). */
interface PendingCase {
  id: string;
  source: string;
  expected: string;
  accepted: string[];
  prepare(model: Model): PreparedCase;
}

/** The cases of a directory; expected and accepted targets normalized as prepareCase does. */
async function casesOfDir(dir: string, model: Model): Promise<PendingCase[]> {
  const norm = (s: string): string => model.symbols.resolve(s) ?? s;
  return (await readCaseDir(dir)).map((f) => ({
    id: f.id,
    source: f.source,
    expected: norm(f.expected),
    accepted: f.accepted.map(norm),
    prepare: (m) => prepareCase(m, f),
  }));
}

async function defaultCases(model: Model): Promise<PendingCase[]> {
  const kang = await kangCases(model, join(KANG_DIR, "kang2018_ifnb_pbmc.h5ad"), defaultCacheDir());
  const kangPending = kang.flatMap((k): PendingCase[] => {
    if (!k.case) {
      process.stderr.write(`Kang ${k.cellType}: no case (${k.error ?? "no DEGs"})\n`);
      return [];
    }
    const prepared = prepareKangCase(k.case);
    return [{ ...prepared, accepted: [...prepared.accepted], prepare: () => prepared }];
  });
  return [
    ...(await casesOfDir(KNOWN_ANSWERS_DIR, model)),
    ...kangPending,
    ...(await casesOfDir(KNOWN_ANSWERS_V2_DIR, model)),
  ];
}

const seconds = (t0: number): string => `${((performance.now() - t0) / 1000).toFixed(1)} s`;

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: {
      cases: { type: "string", multiple: true },
      out: { type: "string" },
      libraries: { type: "string" },
      ppi: { type: "string", multiple: true },
    },
  });
  const outDir = resolve(values.out ?? join(".cache", "validate"));
  const t0 = performance.now();
  const ctx = await defaultNetworkContext({
    // The shared libraries are the default, like the shared network: model v3 reads them.
    librariesDir: values.libraries
      ? resolve(values.libraries)
      : existsSync(sharedData("libraries"))
        ? sharedData("libraries")
        : null,
    // HuRI likewise: model v4 reads PPI layers (its candidates beyond the network).
    ppiFiles: values.ppi ? values.ppi.map((f) => resolve(f)) : existsSync(HURI_PAIRS) ? [HURI_PAIRS] : [],
    onProgress: (walk, done, total) =>
      process.stderr.write(`\rinfluence bundle ${walk}: ${done}/${total} blocks`),
  });
  const { primary } = ctx;
  const methods = await loadMethods(ctx);
  process.stderr.write(`\rmodels and methods ready (${seconds(t0)}), |S| = ${primary.nSources}\n`);

  const pending = values.cases
    ? (await Promise.all(values.cases.map((d) => casesOfDir(d, primary)))).flat()
    : await defaultCases(primary);
  const ids = pending.map((c) => c.id);
  const dup = ids.find((id, i) => ids.indexOf(id) !== i);
  if (dup) throw new Error(`case ${dup} appears twice`);
  const targets = [...new Set(pending.map((c) => c.expected))].sort();
  process.stderr.write(
    `${pending.length} cases, ${targets.length} distinct expected targets (${seconds(t0)})\n`,
  );

  const records: CaseRecord[] = [];
  const tScore = performance.now();
  const methodSeconds = new Map<string, number>([["prepare", 0]]);
  pending.forEach((c, i) => {
    const tp = performance.now();
    let prepared: PreparedCase;
    try {
      prepared = c.prepare(primary);
    } catch (err) {
      process.stderr.write(`\n${c.id}: not scored (${err instanceof Error ? err.message : String(err)})\n`);
      return;
    } finally {
      methodSeconds.set("prepare", methodSeconds.get("prepare")! + (performance.now() - tp) / 1000);
    }
    records.push(
      ...scoreCase(prepared, methods, targets, methodSeconds, (pc, method, why) =>
        process.stderr.write(`\n${pc.id}: ${method} could not rank it (${why})\n`),
      ),
    );
    if (process.stderr.isTTY || (i + 1) % 50 === 0 || i + 1 === pending.length)
      process.stderr.write(`\rscored ${i + 1}/${pending.length} cases (${seconds(t0)})`);
  });
  const scoringSeconds = (performance.now() - tScore) / 1000;
  process.stderr.write(
    `\nseconds by step: ${[...methodSeconds].map(([m, t]) => `${m} ${t.toFixed(1)}`).join(", ")}\n`,
  );

  const truth = new Map<string, CaseTruth>(pending.map((c) => [c.id, c]));
  const names = methods.map((m) => m.name);
  const sources = [...new Set(pending.map((c) => c.source))];
  const groups: { title: string; records: CaseRecord[] }[] = [
    { title: "all cases", records },
    ...(sources.length > 1
      ? sources.map((s) => ({ title: `source ${s}`, records: records.filter((r) => r.source === s) }))
      : []),
  ];
  // A method that ranks proteins beyond the network (v4 with evidence layers) is also summarized
  // over the cases whose protein is one of the network's candidates: the cases every other method
  // is judged on, so its figures compare with theirs.
  const beyondNetwork = new Set(
    records.filter((r) => r.n_candidates > primary.nSources).map((r) => r.method),
  );
  const onNetwork = (r: CaseRecord): boolean => primary.sourceIndex(truth.get(r.id)!.expected) >= 0;
  const summaries: { group: string; methods: MethodSummary[] }[] = groups.map((g) => ({
    group: g.title,
    methods: names.flatMap((m) => [
      summarizeMethod(m, g.records, truth),
      ...(beyondNetwork.has(m)
        ? [{ ...summarizeMethod(m, g.records.filter(onNetwork), truth), method: `${m} (network's cases)` }]
        : []),
    ]),
  }));

  const lines = [
    `# Validation: ${pending.length} cases, default network (|S| = ${primary.nSources}), shipped settings, leakage rule on`,
    "",
    `default model: ${DEFAULT_SCORING_VERSION}. q = rank quantile of the expected target among a method's candidates (0 best, random 0.5);`,
    "top k % = share of cases with q <= k/100; per-target AUROC = for each expected target, P(it ranks higher in a case that perturbed it than in one that did not), averaged over targets.",
    "",
  ];
  for (const s of summaries) lines.push(...summaryTable(s.group, s.methods));
  console.log(lines.join("\n"));

  await mkdir(outDir, { recursive: true });
  await writeFile(
    join(outDir, "cases.json"),
    JSON.stringify({ default_model: DEFAULT_SCORING_VERSION, records }),
  );
  await writeFile(
    join(outDir, "summary.json"),
    JSON.stringify(
      {
        default_model: DEFAULT_SCORING_VERSION,
        n_cases: pending.length,
        n_sources: primary.nSources,
        methods: names,
        summaries,
        seconds: {
          total: (performance.now() - t0) / 1000,
          scoring: scoringSeconds,
          by_method: Object.fromEntries(methodSeconds),
        },
      },
      null,
      1,
    ),
  );
  const png = renderDistributionChart({
    title:
      "Where the expected target ranks: share of cases with q at most x (leakage rule on, shipped settings)",
    subtitle: `default network, |S| = ${primary.nSources}; ${pending.length} cases; dashed line: top 5 %`,
    qMin: 1 / (primary.nSources - 1),
    panels: groups.map((g) => ({
      title: g.title,
      series: names.map((m) => ({
        method: m,
        q: g.records.flatMap((r) => (r.method === m && r.q !== null ? [r.q] : [])),
      })),
    })),
  });
  await writeFile(join(outDir, "validate.png"), png);
  process.stderr.write(
    `wrote cases.json, summary.json and validate.png to ${outDir} (total ${seconds(t0)}, scoring ${scoringSeconds.toFixed(1)} s)\n`,
  );
}

await main();
