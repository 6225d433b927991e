#!/usr/bin/env node
/**
 * `causeway`: the command-line client, built on the SDK. With --json the last line of standard
 * output is the JSON result, so scripts can `| tail -1`; progress and messages go to standard
 * error. A failure is one line, `causeway: error: <code>: <message>`, and exit status 1.
 */
import { createHash } from "node:crypto";
import { openAsBlob } from "node:fs";
import { mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { basename, join } from "node:path";
import { Command, Option } from "commander";
import { saveProfile } from "./config.ts";
import { CausewayError } from "./errors.ts";
import { progressReporter } from "./progress.ts";
import { saveResults } from "./results.ts";
import type { CausewayClient, GraphExportFormat, PredictionStatus, PredictionSubmission } from "./sdk.ts";
import { waitForCausalAnalysis, waitForPrediction } from "./wait.ts";
import {
  clientOf,
  compactStatus,
  integer,
  note,
  number,
  out,
  printJson,
  proteinTarget,
  type Globals,
} from "./cli-support.ts";
import { selectDegs } from "./de-table.ts";
import { registerAnalyses } from "./commands/analyses.ts";
import { causalPathFields, withCausalPathOptions, type CausalPathOptions } from "./causal-path-options.ts";
import {
  columnOptions,
  fieldsOf,
  MAX_OBS,
  registerPrepare,
  writeInputs,
  type ColumnOptions,
} from "./commands/prepare.ts";
import { registerTables } from "./commands/tables.ts";

/** DEGs from a file: a JSON array of symbols, or one symbol per line (commas allowed). */
async function readDegs(path: string): Promise<string[]> {
  const text = await readFile(path, "utf8").catch(() => {
    throw new CausewayError("invalid_input", `cannot read the DEG file ${path}`, 0);
  });
  try {
    const parsed: unknown = JSON.parse(text);
    if (Array.isArray(parsed) && parsed.every((s) => typeof s === "string")) return parsed;
    throw new CausewayError("invalid_input", `${path}: expected a JSON array of gene symbols`, 0);
  } catch (err) {
    if (err instanceof CausewayError) throw err;
    return text
      .split(/[\s,]+/)
      .map((s) => s.trim())
      .filter((s) => s !== "");
  }
}

/** The DEGs of a DE table file: rows under the adjusted p-value threshold with |log2FC| at least lfc. */
async function readDegsTable(
  path: string,
  o: { padj: number; lfc: number; geneColumn?: string | undefined },
): Promise<string[]> {
  const text = await readFile(path, "utf8").catch(() => {
    throw new CausewayError("invalid_input", `cannot read the DE table ${path}`, 0);
  });
  const picked = selectDegs(text, {
    padj: o.padj,
    lfc: o.lfc,
    file: path,
    ...(o.geneColumn !== undefined ? { geneColumn: o.geneColumn } : {}),
  });
  const how = {
    option: "--degs-table-gene-column",
    name: "found by name",
    row_names: "no gene column by name",
  };
  note(
    `${picked.degs.length} of ${picked.nRows} rows of ${basename(path)} pass ${picked.columns.padj} < ${o.padj} and |${picked.columns.lfc}| >= ${o.lfc}; genes from ${picked.columns.gene} (${how[picked.geneColumnFrom]})`,
  );
  for (const n of picked.notes) note(`degs table: ${n}`);
  if (picked.degs.length === 0)
    throw new CausewayError("invalid_input", `no row of ${path} passes the thresholds`, 0);
  return picked.degs;
}

async function fileBlob(path: string): Promise<Blob> {
  try {
    return await openAsBlob(path);
  } catch {
    throw new CausewayError("invalid_input", `cannot read ${path}`, 0);
  }
}

/** Waits with a progress bar; a failed job prints its record, then fails with its code. */
async function waitAndReport(
  client: CausewayClient,
  id: string,
  json: boolean,
  full = false,
): Promise<PredictionStatus> {
  const bar = progressReporter();
  const final = await waitForPrediction(client, id, { onProgress: (p) => bar.update(p) });
  bar.done();
  if (json) printJson(compactStatus(final, full));
  else printStatus(final);
  if (final.status === "failed")
    throw new CausewayError(
      final.error_code ?? "job_failed",
      `prediction ${id} failed: ${final.error_message ?? "no message"}`,
      0,
    );
  return final;
}

function printStatus(s: PredictionStatus): void {
  out(`prediction ${s.prediction_id}: ${s.status}`);
  const rows: [string, unknown][] = [
    ["job type", s.job_type],
    ["target", s.target],
    ["label", s.label],
    ["created", s.created_at],
    ["started", s.started_at],
    ["completed", s.completed_at],
    ["step", s.processing_step],
    ["progress", s.progress_pct === undefined || s.progress_pct === null ? null : `${s.progress_pct}%`],
    ["error", s.error_code ? `${s.error_code}: ${s.error_message ?? ""}` : s.error_message],
  ];
  for (const [k, v] of rows) if (v !== null && v !== undefined) out(`  ${k.padEnd(10)} ${String(v)}`);
  for (const w of s.warnings ?? []) out(`  warning    ${w.code}: ${w.message}`);
  if (s.target_validation_score)
    out(
      `  score      ${s.target_validation_score.id}: ${s.target_validation_score.percentage_degs_significant ?? "n/a"}% of DEGs significant`,
    );
  const top = (s.results ?? []).slice(0, 10);
  if (top.length > 0) {
    out("  top targets (rank, id, score):");
    for (const r of top) out(`    ${String(r.rank ?? "").padStart(5)}  ${r.id.padEnd(24)} ${r.score}`);
  }
}

const program = new Command("causeway")
  .description("Command-line client of the causeway prediction service")
  .option("--url <url>", "service URL (default: CAUSEWAY_URL or the profile)")
  .option("--api-key <key>", "API key (default: CAUSEWAY_API_KEY or the profile)")
  .option("--profile <name>", "profile of the config file (default: CAUSEWAY_PROFILE or default_profile)")
  .showHelpAfterError();

program
  .command("configure")
  .description("save --url and --api-key as a profile (--profile, default 'default') of the config file")
  .action(async (_o: unknown, cmd: Command) => {
    const g = cmd.optsWithGlobals<Globals>();
    if (!g.url || !g.apiKey)
      throw new CausewayError("invalid_input", "configure needs --url and --api-key", 0);
    const name = g.profile ?? "default";
    const path = await saveProfile(name, { url: g.url, api_key: g.apiKey });
    note(`profile ${name} saved in ${path}`);
  });

withCausalPathOptions(
  program
    .command("submit")
    .description("submit a prediction: --dataset FILE, or --control FILE --perturbed FILE --degs FILE")
    .option("--dataset <file>", "merged shape: one .h5ad file")
    .option("--control <file>", "split shape: control .h5ad")
    .option("--perturbed <file>", "split shape: perturbed .h5ad")
    .option("--degs <file>", "split shape: DEG symbols or Ensembl ids (JSON array, or one per line)")
    .option("--degs-table <file>", "split shape: a DE table (DESeq2, edgeR, limma); its DEGs are sent")
    .option("--padj <n>", "with --degs-table: adjusted p-value below this (default 0.05)", number, 0.05)
    .option("--lfc <n>", "with --degs-table: |log2 fold change| at least this (default 1)", number, 1)
    .option(
      "--degs-table-gene-column <name>",
      "with --degs-table: the gene column (default: hgnc_symbol, else a symbol or gene column by name, else the row names)",
    )
    .addOption(
      new Option("--species <species>", "species of the gene identifiers").choices(["human", "mouse"]),
    )
    .option(
      "--subsample",
      `with --dataset: write one cell type's file, each arm subsampled to ${MAX_OBS}, and send it`,
    )
    .option("--max-obs <n>", "with --subsample: observations per arm at most", integer, MAX_OBS)
    .option("--seed <n>", "with --subsample: seed", integer, 1)
    .addOption(new Option("--job-type <type>", "job type").choices(["target_id", "target_validation"]))
    .option("--target <id>", "protein entity id, e.g. 'STAT1|PROTEIN' or STAT1 (target_validation)")
    .option("--deg-significance-fold <n>", "default 1.0", number)
    .option("--min-mean-expression <n>", "default 0.1", number)
    .option("--n-randomizations <n>", "default 0", integer),
)
  .option("--prefix <prefix>", "optional result-set prefix")
  .option("--model-version <version>", "model version (default: the service's)")
  .option("--label <label>", "display label")
  .option("--wait", "wait until the job finishes, with a progress bar")
  .option("--json", "print JSON; the last stdout line is the result")
  .option("--full", "with --wait --json: keep results and source_influence_matrix")
  .action(async (o: SubmitOptions, cmd: Command) => {
    const client = await clientOf(cmd);
    const fields = fieldsOf(o);
    const options = {
      job_type: o.jobType,
      target: proteinTarget(o.target),
      deg_significance_fold: o.degSignificanceFold,
      min_mean_expression: o.minMeanExpression,
      n_randomizations: o.nRandomizations,
      ...causalPathFields(o),
      prefix: o.prefix,
      model_version: o.modelVersion,
      label: o.label,
      species: o.species,
      ...Object.fromEntries(Object.entries(fields).filter(([, v]) => v !== null)),
    };
    let submission: PredictionSubmission;
    let temp: string | null = null;
    if (o.dataset !== undefined) {
      if (o.control || o.perturbed || o.degs || o.degsTable)
        throw new CausewayError(
          "invalid_input",
          "give --dataset, or --control/--perturbed/--degs, not both",
          0,
        );
      let dataset = o.dataset;
      if (o.subsample) {
        // The file written has the standard column names and one cell type: only the control level still matters.
        temp = await mkdtemp(join(tmpdir(), "causeway-submit-"));
        const written = await writeInputs(o.dataset, {
          fields,
          maxObs: o.maxObs,
          seed: o.seed,
          outDir: temp,
        });
        for (const a of written.arms)
          if (a.nAfter < a.nBefore)
            note(`subsampled ${a.level}: ${a.nAfter} of ${a.nBefore} observations, every sample kept`);
        dataset = written.dataset;
        for (const k of [
          "condition_column",
          "sample_column",
          "donor_column",
          "cell_type_column",
          "cell_type",
        ])
          delete (options as Record<string, unknown>)[k];
      }
      submission = { ...options, dataset: await fileBlob(dataset) };
    } else {
      if (!o.control || !o.perturbed || (!o.degs && !o.degsTable) || (o.degs && o.degsTable))
        throw new CausewayError(
          "invalid_input",
          "give --dataset FILE, or --control, --perturbed and one of --degs / --degs-table",
          0,
        );
      submission = {
        ...options,
        dataset_control: await fileBlob(o.control),
        dataset_pert: await fileBlob(o.perturbed),
        degs: o.degs
          ? await readDegs(o.degs)
          : await readDegsTable(o.degsTable!, {
              padj: o.padj,
              lfc: o.lfc,
              geneColumn: o.degsTableGeneColumn,
            }),
      };
    }
    const created = await client
      .createPrediction(submission)
      .finally(() => (temp ? rm(temp, { recursive: true, force: true }) : undefined));
    note(`prediction ${created.prediction_id} ${created.status}`);
    if (created.n_degs !== undefined && created.n_degs_recognised !== undefined)
      note(`${created.n_degs_recognised} of ${created.n_degs} DEGs recognised`);
    if (o.wait) await waitAndReport(client, created.prediction_id, o.json === true, o.full === true);
    else if (o.json) printJson(created);
    else out(created.prediction_id);
  });

interface SubmitOptions extends ColumnOptions, CausalPathOptions {
  degsTable?: string;
  degsTableGeneColumn?: string;
  padj: number;
  lfc: number;
  species?: "human" | "mouse";
  subsample?: boolean;
  maxObs: number;
  seed: number;
  full?: boolean;
  dataset?: string;
  control?: string;
  perturbed?: string;
  degs?: string;
  jobType?: "target_id" | "target_validation";
  target?: string;
  degSignificanceFold?: number;
  minMeanExpression?: number;
  nRandomizations?: number;
  prefix?: string;
  modelVersion?: string;
  label?: string;
  wait?: boolean;
  json?: boolean;
}

program
  .command("wait")
  .description("wait for a prediction (or --causal-analysis) to finish, with a progress bar")
  .argument("<id>", "prediction id (or causal-analysis id)")
  .option("--causal-analysis", "the id is a causal-analysis id")
  .option("--json", "print the final status record as JSON (compact unless --full)")
  .option("--full", "with --json: keep results and source_influence_matrix")
  .action(
    async (id: string, o: { causalAnalysis?: boolean; json?: boolean; full?: boolean }, cmd: Command) => {
      const client = await clientOf(cmd);
      if (!o.causalAnalysis) {
        await waitAndReport(client, id, o.json === true, o.full === true);
        return;
      }
      const bar = progressReporter();
      const final = await waitForCausalAnalysis(client, id, { onProgress: (p) => bar.update(p) });
      bar.done();
      if (o.json) printJson(final);
      else out(`causal analysis ${final.causal_analysis_id}: ${final.status}`);
      if (final.status === "failed")
        throw new CausewayError(
          "job_failed",
          `causal analysis ${id} failed: ${final.error_message ?? ""}`,
          0,
        );
    },
  );

program
  .command("status")
  .description("status (and the top results) of a prediction")
  .argument("<id>", "prediction id")
  .option("--json", "print the status record as JSON, without results and source_influence_matrix")
  .option("--full", "with --json: the whole record")
  .action(async (id: string, o: { json?: boolean; full?: boolean }, cmd: Command) => {
    const client = await clientOf(cmd);
    // Without --full the large parts are not printed, so only a few rows are asked for.
    const status = await client.getPrediction(
      id,
      o.json && !o.full ? { max_rows: 1, max_columns: 1, max_source_influence_rows: 1 } : {},
    );
    if (o.json) printJson(compactStatus(status, o.full === true));
    else printStatus(status);
  });

program
  .command("list")
  .description("the account's predictions, newest first")
  .option("--limit <n>", "page size 1..100", integer, 50)
  .option("--cursor <token>", "next_cursor of the previous page")
  .option("--all", "every page")
  .option("--json", "print JSON ({predictions, next_cursor}; with --all, the array)")
  .action(async (o: { limit: number; cursor?: string; all?: boolean; json?: boolean }, cmd: Command) => {
    const client = await clientOf(cmd);
    let rows: PredictionStatus[];
    let next: string | null = null;
    if (o.all) {
      rows = [];
      for await (const p of client.allPredictions(100)) rows.push(p);
      if (o.json) printJson(rows);
    } else {
      const page = await client.listPredictions({ limit: o.limit, cursor: o.cursor });
      rows = page.predictions;
      next = page.next_cursor ?? null;
      if (o.json) printJson(page);
    }
    if (o.json) return;
    for (const p of rows)
      out(
        [
          p.prediction_id,
          p.status.padEnd(10),
          (p.job_type ?? "").padEnd(17),
          p.created_at,
          p.target ?? "",
          p.label ?? "",
        ]
          .join("  ")
          .trimEnd(),
      );
    if (next) note(`more: causeway list --cursor ${next}`);
  });

program
  .command("results")
  .description("download every result of a completed prediction into a folder, with SHA256SUMS")
  .argument("<id>", "prediction id")
  .requiredOption("--out <dir>", "folder to write into (created when missing)")
  .option("--json", "print {prediction_id, out, files: [{name, bytes, sha256}]}")
  .action(async (id: string, o: { out: string; json?: boolean }, cmd: Command) => {
    const saved = await saveResults(await clientOf(cmd), id, o.out, (f) => {
      if (!o.json) out(`${f.sha256}  ${f.name}  (${f.bytes} bytes)`);
    });
    if (o.json) printJson(saved);
    else note(`${saved.files.length} files in ${saved.out} (checksums in SHA256SUMS)`);
  });

program
  .command("graph")
  .description(
    "causal graph of a target_validation prediction (or --causal-analysis): the PNG, or with --format a network file for Cytoscape (cx2, graphml, sif)",
  )
  .argument("<id>", "prediction id (or causal-analysis id)")
  .option("--out <file>", "file to write (required for png; network files go to standard output without it)")
  .addOption(
    new Option(
      "--format <format>",
      "png, or cx2 / graphml / sif: the PNG's nodes and edges as a network file",
    )
      .choices(["png", "cx2", "graphml", "sif"])
      .default("png"),
  )
  .option("--top-n-degs <n>", "DEGs to draw (1..10000)", integer, 20)
  .option("--dpi <n>", "png: 72..600", integer)
  .option("--causal-analysis", "the id is a causal-analysis id (its own graph, fixed at creation)")
  .option("--json", "print {out, format, bytes, sha256}")
  .action(
    async (
      id: string,
      o: {
        out?: string;
        format: "png" | GraphExportFormat;
        topNDegs: number;
        dpi?: number;
        causalAnalysis?: boolean;
        json?: boolean;
      },
      cmd: Command,
    ) => {
      const client = await clientOf(cmd);
      let body: Uint8Array;
      if (o.format === "png") {
        if (o.out === undefined) throw new CausewayError("invalid_input", "--format png needs --out FILE", 0);
        body = o.causalAnalysis
          ? await client.getCausalAnalysisGraph(id)
          : await client.getCausalGraph(id, { top_n_degs: o.topNDegs, dpi: o.dpi });
      } else {
        const text = o.causalAnalysis
          ? await client.getCausalAnalysisGraphExport(id, { format: o.format })
          : await client.getCausalGraphExport(id, { top_n_degs: o.topNDegs, format: o.format });
        if (o.out === undefined) {
          process.stdout.write(text);
          return;
        }
        body = new TextEncoder().encode(text);
      }
      await writeFile(o.out, body);
      const result = {
        out: o.out,
        format: o.format,
        bytes: body.byteLength,
        sha256: createHash("sha256").update(body).digest("hex"),
      };
      if (o.json) printJson(result);
      else out(`${basename(o.out)}: ${result.bytes} bytes`);
    },
  );

program
  .command("paths")
  .description("causal paths from the target to the impacted DEGs of a target_validation prediction")
  .argument("<id>", "prediction id")
  .option("--json", "print the CausalPathsResponse")
  .action(async (id: string, o: { json?: boolean }, cmd: Command) => {
    const paths = await (await clientOf(cmd)).getCausalPaths(id);
    if (o.json) {
      printJson(paths);
      return;
    }
    note(`${paths.paths.length} paths to ${paths.degs_total} impacted DEGs`);
    out(["deg", "length", "score_path_given_target", "path"].join("\t"));
    for (const p of paths.paths)
      out([p.deg, p.length ?? "", p.score_path_given_target ?? "", p.path].join("\t"));
  });

program
  .command("quota")
  .description("the account's lifetime prediction quota")
  .option("--json", "print the quota record")
  .action(async (o: { json?: boolean }, cmd: Command) => {
    const q = await (await clientOf(cmd)).getQuota();
    if (o.json) printJson(q);
    else
      out(
        `${q.remaining_quota_requests} of ${q.total_quota_requests} predictions left (${q.consumed_quota_requests} used)`,
      );
  });

registerPrepare(program);
registerAnalyses(program);
registerTables(program);
columnOptions(program.commands.find((c) => c.name() === "submit")!);

try {
  await program.parseAsync(process.argv);
} catch (e) {
  note(
    `causeway: error: ${e instanceof CausewayError ? e.oneLine() : e instanceof Error ? e.message : String(e)}`,
  );
  process.exitCode = 1;
}
