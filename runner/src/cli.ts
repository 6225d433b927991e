/**
 * The runner's command line for local files (no server, no database):
 *
 *   target-id         --network NET --degs DEGS.json [--de-table TABLE.tsv] --out DIR [--model-version v2]
 *   target-id         --network NET --dataset MERGED.h5ad --out DIR
 *   target-validation --network NET --control C.h5ad --perturbed P.h5ad --degs DEGS.json --target SYMBOL|PROTEIN --out DIR
 *
 * Each writes the artifacts of model.md §13 into DIR and exits non-zero with the failure code
 * on failure. The influence bundle of a network is built once and cached (buildModelFromFiles).
 * `--model-version v1|v2` (default v1) selects the model: v2's bundle uses its own walk (hub
 * penalty) and its scoring (runner/docs/model-v2.md).
 */
import { Command, InvalidArgumentError, Option } from "commander";
import { existsSync } from "node:fs";
import { mkdir, readFile } from "node:fs/promises";
import { dirname, join, resolve } from "node:path";
import { JobFailure, PredictionParams, RUNNER_EXIT, type JobType } from "@causeway/contract";
import { z } from "zod";
import { normalizeDegs } from "./inputs/index.ts";
import { loadLayersFromDir, pairsLayerName, parsePairs } from "./libraries/index.ts";
import type { SymbolTable } from "./symbols/index.ts";
import { buildModelFromFiles, type Model } from "./model/index.ts";
import {
  DEFAULT_SCORING_VERSION,
  PERTURBATION_TYPES,
  ScoringVersion,
  scoringOf,
  type PerturbationType,
} from "./scoring/index.ts";
import { FsObjectStore } from "./storage/index.ts";
import { ArtifactWriter } from "./jobs/artifact-writer.ts";
import { contrastFromDegList } from "./jobs/contrast.ts";
import { readDeTable } from "./jobs/de-table.ts";
import { runPrediction, type LocalInputs } from "./jobs/prediction-job.ts";
import { ConsoleReporter } from "./jobs/reporter.ts";
import { failureReport } from "./jobs/run-job.ts";
import { RunMetadata } from "./jobs/run-metadata.ts";

interface CommonOptions {
  network: string;
  modelVersion: ScoringVersion;
  hgnc?: string;
  out: string;
  degSignificanceFold: number;
  minMeanExpression: number;
  nRandomizations: number;
  threads?: number;
  libraries?: string;
  ppi?: string[];
  perturbationType?: PerturbationType;
}

const number = (v: string): number => {
  const n = Number(v);
  if (!Number.isFinite(n)) throw new InvalidArgumentError("not a number");
  return n;
};
const integer = (v: string): number => {
  const n = Number(v);
  if (!Number.isInteger(n)) throw new InvalidArgumentError("not an integer");
  return n;
};

function withCommon(cmd: Command): Command {
  return cmd
    .requiredOption("--network <file>", "interactome TSV (gzip or plain)")
    .option("--hgnc <dir>", "HGNC tables (default: $CAUSEWAY_HGNC, else hgnc/ beside the network's folder)")
    .requiredOption("--out <dir>", "folder the artifacts are written to")
    .option("--deg-significance-fold <f>", "minimum fold over uniform", number, 1)
    .option("--min-mean-expression <cp10k>", "protein_expressed threshold", number, 0.1)
    .option("--n-randomizations <R>", "matched random DEG sets", integer, 0)
    .addOption(
      new Option("--model-version <version>", "model version: v1, v2, v3 or v4")
        .choices(ScoringVersion.options)
        .default(DEFAULT_SCORING_VERSION),
    )
    .addOption(new Option("--threads <n>", "worker threads for a bundle build").argParser(integer))
    .addOption(
      new Option(
        "--perturbation-type <type>",
        "what was done to the cells (model v4 conditions its prior on it; default unknown)",
      ).choices(PERTURBATION_TYPES),
    )
    .option(
      "--libraries <dir>",
      "gene-set libraries, model v3's and v4's evidence layers (default: $CAUSEWAY_LIBRARIES, else libraries/ beside the network's folder when present)",
    )
    .option(
      "--ppi <file...>",
      "protein–protein interaction pair files (two tab-separated genes per line, e.g. HuRI): model v4 ranks their proteins too",
    );
}

/** The libraries folder of a v3 run: explicit, from the environment, or the data layout's sibling folder. */
function librariesDir(opts: CommonOptions): string | null {
  if (opts.libraries) return opts.libraries;
  if (process.env.CAUSEWAY_LIBRARIES) return process.env.CAUSEWAY_LIBRARIES;
  const sibling = join(dirname(resolve(opts.network)), "..", "libraries");
  return existsSync(sibling) ? sibling : null;
}

/** The HGNC folder: explicit, from the environment, or the data layout's sibling folder. */
function hgncDir(opts: CommonOptions): string {
  const candidates = [
    opts.hgnc,
    process.env.CAUSEWAY_HGNC,
    join(dirname(resolve(opts.network)), "..", "hgnc"),
  ];
  const found = candidates.find(
    (d): d is string => d !== undefined && existsSync(join(d, "gene_symbols.tsv.gz")),
  );
  if (!found) throw new Error("no HGNC tables found: pass --hgnc DIR or set CAUSEWAY_HGNC");
  return found;
}

async function loadModelFor(opts: CommonOptions): Promise<Model> {
  const progress = process.stderr.isTTY
    ? (done: number, total: number) => process.stderr.write(`\rbuilding influence bundle ${done}/${total}`)
    : undefined;
  const model = await buildModelFromFiles({
    networkPath: opts.network,
    hgncDir: hgncDir(opts),
    threads: opts.threads,
    onProgress: progress,
    walk: scoringOf(opts.modelVersion).walk,
  });
  if (progress) process.stderr.write("\n");
  // Only a scoring that reads evidence layers gets them; the others run exactly as before.
  const kinds = scoringOf(opts.modelVersion).layerKinds;
  if (kinds.length === 0) return model;
  const libraries = librariesDir(opts);
  const ppiFiles = kinds.includes("ppi") ? (opts.ppi ?? []) : [];
  const layers = [
    ...(libraries ? await loadLayersFromDir(libraries, model.symbols) : []),
    ...(await Promise.all(
      ppiFiles.map(async (f) => parsePairs(await readFile(f), pairsLayerName(f), model.symbols)),
    )),
  ].filter((l) => kinds.includes(l.kind));
  return layers.length > 0 ? model.withLayers(layers) : model;
}

async function run(
  jobType: JobType,
  opts: CommonOptions,
  target: string | null,
  inputs: (m: Model) => Promise<LocalInputs>,
): Promise<void> {
  const params = PredictionParams.parse({
    deg_significance_fold: opts.degSignificanceFold,
    min_mean_expression: opts.minMeanExpression,
    n_randomizations: opts.nRandomizations,
    ...(opts.perturbationType ? { perturbation_type: opts.perturbationType } : {}),
  });
  const model = await loadModelFor(opts);
  await mkdir(opts.out, { recursive: true });
  const out = new ArtifactWriter(new FsObjectStore(resolve(opts.out)), "");
  const metadata = new RunMetadata({
    job_id: "command-line",
    kind: "prediction",
    job_type: jobType,
    model_version: opts.modelVersion,
    parameters: params,
  });
  metadata.set("model_bundle", model.manifest.version);
  const reporter = new ConsoleReporter();
  try {
    const { warnings } = await runPrediction({
      predictionId: "command-line",
      jobType,
      target,
      params,
      model,
      inputs: await inputs(model),
      out,
      reporter,
      metadata,
      scoring: opts.modelVersion,
    });
    for (const w of warnings ?? []) process.stderr.write(`warning ${w.code}: ${w.message}\n`);
    process.stderr.write(`artifacts written to ${opts.out}\n`);
  } catch (err) {
    const report = await failureReport(err, out, metadata);
    await reporter.finish(report);
    if (!(err instanceof JobFailure))
      process.stderr.write(`${err instanceof Error ? err.stack : String(err)}\n`);
    process.exitCode = RUNNER_EXIT.jobFailed;
  }
}

/**
 * A DEG list file: a JSON array of symbols, or a signed list {"up": [...], "down": [...]} whose
 * signs stand in for fold changes (a gene in both lists has no sign).
 */
function readDegList(text: string, symbols: SymbolTable): { degs: string[]; signs?: Map<string, number> } {
  const parsed: unknown = JSON.parse(text);
  const signed = SignedDegList.safeParse(parsed);
  if (!signed.success) return { degs: normalizeDegs(text, symbols).symbols };
  const up = normalizeDegs(signed.data.up, symbols).symbols;
  const down = normalizeDegs(signed.data.down, symbols).symbols;
  const signs = new Map<string, number>();
  for (const g of up) signs.set(g, 1);
  for (const g of down) signs.set(g, signs.has(g) ? 0 : -1);
  return { degs: [...new Set([...up, ...down])], signs };
}
const SignedDegList = z.object({ up: z.array(z.string()), down: z.array(z.string()) });

const program = new Command("runner").description(
  "causeway runner: target identification and validation on local files",
);

withCommon(program.command("target-id").description("rank candidate targets"))
  .option(
    "--degs <file>",
    'DEG list (JSON array of symbols, or {"up": [...], "down": [...]}); without --de-table its universe is every RNA node of the model',
  )
  .option(
    "--de-table <file>",
    "DE table for --degs: genes in the first column, fold changes in logFC (model v2 also reads mean_cp10k_ctrl, model v4 the test statistic in t, stat or LR)",
  )
  .option("--dataset <file>", "merged .h5ad")
  .action(async (opts: CommonOptions & { degs?: string; deTable?: string; dataset?: string }) => {
    if ((opts.degs === undefined) === (opts.dataset === undefined))
      throw new InvalidArgumentError("give either --degs or --dataset");
    await run("target_id", opts, null, async (model) => {
      if (opts.dataset) return { shape: "merged", datasetPath: opts.dataset };
      const { degs, signs } = readDegList(await readFile(opts.degs!, "utf8"), model.symbols);
      const table = opts.deTable ? readDeTable(await readFile(opts.deTable, "utf8"), model.symbols) : null;
      return { shape: "contrast", build: (m) => contrastFromDegList(m, degs, table, signs) };
    });
  });

withCommon(
  program.command("target-validation").description("validate one target and explain it with causal paths"),
)
  .requiredOption("--control <file>", "control .h5ad")
  .requiredOption("--perturbed <file>", "perturbed .h5ad")
  .requiredOption("--degs <file>", "DEG list (JSON array of symbols)")
  .requiredOption("--target <id>", "target protein, SYMBOL or SYMBOL|PROTEIN")
  .action(
    async (opts: CommonOptions & { control: string; perturbed: string; degs: string; target: string }) => {
      await run("target_validation", opts, opts.target, async () => ({
        shape: "split",
        controlPath: opts.control,
        perturbedPath: opts.perturbed,
        degsJson: await readFile(opts.degs, "utf8"),
      }));
    },
  );

try {
  await program.parseAsync(process.argv);
} catch (err) {
  process.stderr.write(`error: ${err instanceof Error ? err.message : String(err)}\n`);
  process.exitCode = 2;
}
