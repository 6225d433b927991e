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
import { access, constants, mkdir, readFile } from "node:fs/promises";
import { dirname, join, resolve } from "node:path";
import {
  GeneListFormatError,
  JobFailure,
  parseGeneList,
  PredictionParams,
  RUNNER_EXIT,
  type GeneList,
  type JobType,
} from "@causeway/contract";
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
  // Reading the inputs is the command line's part: a bad file is a usage error (exit 2), not a job failure.
  const jobInputs = await inputs(model);
  const reporter = new ConsoleReporter();
  try {
    const { warnings } = await runPrediction({
      predictionId: "command-line",
      jobType,
      target,
      params,
      model,
      inputs: jobInputs,
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
 * A DEG list file as `parseGeneList` reads it (a JSON array, plain text, or a signed list
 * {"up": [...], "down": [...]} whose signs stand in for fold changes: a gene in both has no sign),
 * read before the model is built so that a wrong path or format fails at once.
 */
async function readDegFile(path: string): Promise<GeneList> {
  const text = await readInput(path, "--degs");
  try {
    return parseGeneList(text);
  } catch (err) {
    if (err instanceof GeneListFormatError) throw new InvalidArgumentError(`--degs ${path}: ${err.message}`);
    throw err;
  }
}

async function readInput(path: string, option: string): Promise<string> {
  try {
    return await readFile(path, "utf8");
  } catch (err) {
    const reason = (err as NodeJS.ErrnoException).code === "ENOENT" ? "no such file" : "cannot be read";
    throw new InvalidArgumentError(`${option} ${path}: ${reason}`);
  }
}

async function checkReadable(path: string, option: string): Promise<void> {
  try {
    await access(path, constants.R_OK);
  } catch {
    throw new InvalidArgumentError(`${option} ${path}: no such file, or it cannot be read`);
  }
}

function signedDegs(list: GeneList, symbols: SymbolTable): { degs: string[]; signs?: Map<string, number> } {
  if (list.signed === null) return { degs: normalizeDegs(list.genes, symbols).symbols };
  const up = normalizeDegs(list.signed.up, symbols).symbols;
  const down = normalizeDegs(list.signed.down, symbols).symbols;
  const signs = new Map<string, number>();
  for (const g of up) signs.set(g, 1);
  for (const g of down) signs.set(g, signs.has(g) ? 0 : -1);
  return { degs: [...new Set([...up, ...down])], signs };
}

const program = new Command("runner").description(
  "causeway runner: target identification and validation on local files",
);

withCommon(program.command("target-id").description("rank candidate targets"))
  .option(
    "--degs <file>",
    'DEG list (JSON array of symbols, one per line, or {"up": [...], "down": [...]}); without --de-table its universe is every RNA node of the model',
  )
  .option(
    "--de-table <file>",
    "DE table for --degs (DESeq2, edgeR, limma, Seurat, scanpy; tab, comma or semicolon separated): genes by hgnc_symbol or the first column, the fold change and test statistic by the tools' column names (model v2 also reads mean_cp10k_ctrl)",
  )
  .option("--dataset <file>", "merged .h5ad")
  .action(async (opts: CommonOptions & { degs?: string; deTable?: string; dataset?: string }) => {
    if ((opts.degs === undefined) === (opts.dataset === undefined))
      throw new InvalidArgumentError("give either --degs or --dataset");
    if (opts.dataset) {
      const datasetPath = opts.dataset;
      await checkReadable(datasetPath, "--dataset");
      await run("target_id", opts, null, async () => ({ shape: "merged", datasetPath }));
      return;
    }
    const list = await readDegFile(opts.degs!);
    const tableText = opts.deTable ? await readInput(opts.deTable, "--de-table") : null;
    await run("target_id", opts, null, async (model) => {
      const { degs, signs } = signedDegs(list, model.symbols);
      const table = tableText === null ? null : readDeTable(tableText, model.symbols);
      return { shape: "contrast", build: (m) => contrastFromDegList(m, degs, table, signs) };
    });
  });

withCommon(
  program.command("target-validation").description("validate one target and explain it with causal paths"),
)
  .requiredOption("--control <file>", "control .h5ad")
  .requiredOption("--perturbed <file>", "perturbed .h5ad")
  .requiredOption(
    "--degs <file>",
    "DEG list (JSON array of symbols, or one per line; the data give the signs)",
  )
  .requiredOption("--target <id>", "target protein, SYMBOL or SYMBOL|PROTEIN")
  .action(
    async (opts: CommonOptions & { control: string; perturbed: string; degs: string; target: string }) => {
      await checkReadable(opts.control, "--control");
      await checkReadable(opts.perturbed, "--perturbed");
      const degsJson = JSON.stringify((await readDegFile(opts.degs)).genes);
      await run("target_validation", opts, opts.target, async () => ({
        shape: "split",
        controlPath: opts.control,
        perturbedPath: opts.perturbed,
        degsJson,
      }));
    },
  );

try {
  await program.parseAsync(process.argv);
} catch (err) {
  process.stderr.write(`error: ${err instanceof Error ? err.message : String(err)}\n`);
  process.exitCode = 2;
}
