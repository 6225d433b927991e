#!/usr/bin/env node
/**
 * `causeway`: the command-line client, built on the SDK. With --json the last line of standard
 * output is the JSON result, so scripts can `| tail -1`; progress and messages go to standard
 * error. A failure is one line, `causeway: error: <code>: <message>`, and exit status 1.
 */
import { createHash } from "node:crypto";
import { writeFile } from "node:fs/promises";
import { basename } from "node:path";
import { Command, Option } from "commander";
import { saveProfile } from "./config.ts";
import { CausewayError } from "./errors.ts";
import { progressReporter } from "./progress.ts";
import { saveResults } from "./results.ts";
import type { GraphExportFormat, PredictionStatus } from "./sdk.ts";
import { waitForCausalAnalysis } from "./wait.ts";
import { clientOf, compactStatus, integer, note, out, printJson, type Globals } from "./cli-support.ts";
import { registerAnalyses } from "./commands/analyses.ts";
import { printStatus, waitAndReport } from "./commands/report-status.ts";
import { registerSubmit } from "./commands/submit.ts";
import { columnOptions, registerPrepare } from "./commands/prepare.ts";
import { registerTables } from "./commands/tables.ts";

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

registerSubmit(program);

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
