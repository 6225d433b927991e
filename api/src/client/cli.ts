#!/usr/bin/env node
/**
 * `causeway`: the command-line client, built on the SDK. With --json the last line of standard
 * output is the JSON result, so scripts can `| tail -1`; progress and messages go to standard
 * error. A failure is one line, `causeway: error: <code>: <message>`, and exit status 1.
 */
import { createHash } from "node:crypto";
import { openAsBlob } from "node:fs";
import { readFile, writeFile } from "node:fs/promises";
import { basename } from "node:path";
import { Command, InvalidArgumentError, Option } from "commander";
import { resolveConnection, saveProfile } from "./config.ts";
import { CausewayError } from "./errors.ts";
import { progressReporter } from "./progress.ts";
import { saveResults } from "./results.ts";
import { CausewayClient, type PredictionStatus, type PredictionSubmission } from "./sdk.ts";
import { waitForCausalAnalysis, waitForPrediction } from "./wait.ts";

const out = (line: string) => process.stdout.write(line + "\n");
const note = (line: string) => process.stderr.write(line + "\n");
const printJson = (value: unknown) => out(JSON.stringify(value));

const number = (v: string): number => {
  const n = Number(v);
  if (v.trim() === "" || !Number.isFinite(n)) throw new InvalidArgumentError("expected a number");
  return n;
};
const integer = (v: string): number => {
  const n = number(v);
  if (!Number.isInteger(n)) throw new InvalidArgumentError("expected an integer");
  return n;
};

interface Globals {
  url?: string;
  apiKey?: string;
  profile?: string;
}

async function clientOf(cmd: Command): Promise<CausewayClient> {
  const g = cmd.optsWithGlobals<Globals>();
  const conn = await resolveConnection({ url: g.url, apiKey: g.apiKey, profile: g.profile });
  return new CausewayClient({ baseUrl: conn.url, apiKey: conn.apiKey });
}

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

async function fileBlob(path: string): Promise<Blob> {
  try {
    return await openAsBlob(path);
  } catch {
    throw new CausewayError("invalid_input", `cannot read ${path}`, 0);
  }
}

/** Waits with a progress bar; a failed job prints its record, then fails with its code. */
async function waitAndReport(client: CausewayClient, id: string, json: boolean): Promise<PredictionStatus> {
  const bar = progressReporter();
  const final = await waitForPrediction(client, id, { onProgress: (p) => bar.update(p) });
  bar.done();
  if (json) printJson(final);
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

program
  .command("submit")
  .description("submit a prediction: --dataset FILE, or --control FILE --perturbed FILE --degs FILE")
  .option("--dataset <file>", "merged shape: one .h5ad file")
  .option("--control <file>", "split shape: control .h5ad")
  .option("--perturbed <file>", "split shape: perturbed .h5ad")
  .option("--degs <file>", "split shape: DEG symbols (JSON array, or one per line)")
  .addOption(new Option("--job-type <type>", "job type").choices(["target_id", "target_validation"]))
  .option("--target <id>", "protein entity id, e.g. 'STAT1|PROTEIN' (target_validation)")
  .option("--deg-significance-fold <n>", "default 1.0", number)
  .option("--min-mean-expression <n>", "default 0.1", number)
  .option("--n-randomizations <n>", "default 0", integer)
  .option("--top-n-causal-degs <n>", "default 1000", integer)
  .option("--min-path-fraction <n>", "default 0.1", number)
  .option("--min-path-probability <n>", "default 0.0001", number)
  .option("--max-path-length <n>", "optional", integer)
  .option("--min-degs-fold-uniform <n>", "optional", number)
  .option("--prefix <prefix>", "optional result-set prefix")
  .option("--model-version <version>", "model version (default: the service's)")
  .option("--label <label>", "display label")
  .option("--wait", "wait until the job finishes, with a progress bar")
  .option("--json", "print JSON; the last stdout line is the result")
  .action(async (o: SubmitOptions, cmd: Command) => {
    const client = await clientOf(cmd);
    const options = {
      job_type: o.jobType,
      target: o.target,
      deg_significance_fold: o.degSignificanceFold,
      min_mean_expression: o.minMeanExpression,
      n_randomizations: o.nRandomizations,
      top_n_causal_degs: o.topNCausalDegs,
      min_path_fraction: o.minPathFraction,
      min_path_probability: o.minPathProbability,
      max_path_length: o.maxPathLength,
      min_degs_fold_uniform: o.minDegsFoldUniform,
      prefix: o.prefix,
      model_version: o.modelVersion,
      label: o.label,
    };
    let submission: PredictionSubmission;
    if (o.dataset !== undefined) {
      if (o.control || o.perturbed || o.degs)
        throw new CausewayError(
          "invalid_input",
          "give --dataset, or --control/--perturbed/--degs, not both",
          0,
        );
      submission = { ...options, dataset: await fileBlob(o.dataset) };
    } else {
      if (!o.control || !o.perturbed || !o.degs)
        throw new CausewayError(
          "invalid_input",
          "give --dataset FILE, or --control, --perturbed and --degs",
          0,
        );
      submission = {
        ...options,
        dataset_control: await fileBlob(o.control),
        dataset_pert: await fileBlob(o.perturbed),
        degs: await readDegs(o.degs),
      };
    }
    const created = await client.createPrediction(submission);
    note(`prediction ${created.prediction_id} ${created.status}`);
    if (o.wait) await waitAndReport(client, created.prediction_id, o.json === true);
    else if (o.json) printJson(created);
    else out(created.prediction_id);
  });

interface SubmitOptions {
  dataset?: string;
  control?: string;
  perturbed?: string;
  degs?: string;
  jobType?: "target_id" | "target_validation";
  target?: string;
  degSignificanceFold?: number;
  minMeanExpression?: number;
  nRandomizations?: number;
  topNCausalDegs?: number;
  minPathFraction?: number;
  minPathProbability?: number;
  maxPathLength?: number;
  minDegsFoldUniform?: number;
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
  .option("--json", "print the final status record as JSON")
  .action(async (id: string, o: { causalAnalysis?: boolean; json?: boolean }, cmd: Command) => {
    const client = await clientOf(cmd);
    if (!o.causalAnalysis) {
      await waitAndReport(client, id, o.json === true);
      return;
    }
    const bar = progressReporter();
    const final = await waitForCausalAnalysis(client, id, { onProgress: (p) => bar.update(p) });
    bar.done();
    if (o.json) printJson(final);
    else out(`causal analysis ${final.causal_analysis_id}: ${final.status}`);
    if (final.status === "failed")
      throw new CausewayError("job_failed", `causal analysis ${id} failed: ${final.error_message ?? ""}`, 0);
  });

program
  .command("status")
  .description("status (and the top results) of a prediction")
  .argument("<id>", "prediction id")
  .option("--json", "print the status record as JSON")
  .action(async (id: string, o: { json?: boolean }, cmd: Command) => {
    const status = await (await clientOf(cmd)).getPrediction(id);
    if (o.json) printJson(status);
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
  .description("causal graph PNG of a target_validation prediction (or --causal-analysis) into a file")
  .argument("<id>", "prediction id (or causal-analysis id)")
  .requiredOption("--out <file>", "PNG file to write")
  .option("--top-n-degs <n>", "DEGs to draw (1..10000)", integer, 20)
  .option("--dpi <n>", "72..600", integer)
  .option("--causal-analysis", "the id is a causal-analysis id (its pre-rendered graph)")
  .option("--json", "print {out, bytes, sha256}")
  .action(
    async (
      id: string,
      o: { out: string; topNDegs: number; dpi?: number; causalAnalysis?: boolean; json?: boolean },
      cmd: Command,
    ) => {
      const client = await clientOf(cmd);
      const png = o.causalAnalysis
        ? await client.getCausalAnalysisGraph(id)
        : await client.getCausalGraph(id, { top_n_degs: o.topNDegs, dpi: o.dpi });
      await writeFile(o.out, png);
      const result = {
        out: o.out,
        bytes: png.byteLength,
        sha256: createHash("sha256").update(png).digest("hex"),
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
    out(`${paths.paths.length} paths to ${paths.degs_total} impacted DEGs`);
    for (const p of paths.paths)
      out(
        `${p.deg.padEnd(12)} ${String(p.length ?? "").padStart(2)}  ${String(p.score_path_given_target ?? "").padEnd(22)} ${p.path}`,
      );
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

try {
  await program.parseAsync(process.argv);
} catch (e) {
  note(
    `causeway: error: ${e instanceof CausewayError ? e.oneLine() : e instanceof Error ? e.message : String(e)}`,
  );
  process.exitCode = 1;
}
