/** `causeway analyses create|get|list|graph`: standalone causal analyses of a completed prediction. */
import { createHash } from "node:crypto";
import { writeFile } from "node:fs/promises";
import type { Command } from "commander";
import { CausewayError } from "../errors.ts";
import { progressReporter } from "../progress.ts";
import { waitForCausalAnalysis } from "../wait.ts";
import { clientOf, note, out, printJson, proteinTarget } from "../cli-support.ts";
import type { CausalAnalysisStatus } from "../sdk.ts";
import { causalPathFields, withCausalPathOptions, type CausalPathOptions } from "../causal-path-options.ts";

function printAnalysis(a: CausalAnalysisStatus): void {
  out(`causal analysis ${a.causal_analysis_id}: ${a.status}`);
  const rows: [string, unknown][] = [
    ["prediction", a.prediction_id],
    ["target", a.target],
    ["created", a.created_at],
    ["completed", a.completed_at],
    ["error", a.error_message],
  ];
  for (const [k, v] of rows) if (v !== null && v !== undefined) out(`  ${k.padEnd(10)} ${String(v)}`);
}

/** The record without the inline PNG (base64), unless asked for. */
const compact = (a: CausalAnalysisStatus, full: boolean): CausalAnalysisStatus =>
  full || !a.results ? a : { ...a, results: null };

export function registerAnalyses(program: Command): void {
  const analyses = program
    .command("analyses")
    .description("standalone causal analyses of a completed prediction");

  withCausalPathOptions(
    analyses
      .command("create")
      .description("create a causal analysis of a target of a completed prediction")
      .argument("<prediction-id>", "prediction id")
      .requiredOption("--target <id>", "protein entity id (STAT1 means STAT1|PROTEIN)"),
  )
    .option("--prefix <prefix>", "result set (required when the prediction has several)")
    .option("--wait", "wait until it finishes")
    .option("--json", "print JSON; the last stdout line is the result")
    .option("--full", "with --json: keep the inline PNG")
    .action(
      async (
        predictionId: string,
        o: CausalPathOptions & {
          target: string;
          prefix?: string;
          wait?: boolean;
          json?: boolean;
          full?: boolean;
        },
        cmd: Command,
      ) => {
        const client = await clientOf(cmd);
        const created = await client.createCausalAnalysis({
          prediction_id: predictionId,
          target: proteinTarget(o.target)!,
          ...causalPathFields(o),
          prefix: o.prefix,
        });
        note(`causal analysis ${created.causal_analysis_id} ${created.status}`);
        if (!o.wait) {
          if (o.json) printJson(created);
          else out(created.causal_analysis_id);
          return;
        }
        const bar = progressReporter();
        const final = await waitForCausalAnalysis(client, created.causal_analysis_id, {
          onProgress: (p) => bar.update(p),
        });
        bar.done();
        if (o.json) printJson(compact(final, o.full === true));
        else printAnalysis(final);
        if (final.status === "failed")
          throw new CausewayError("job_failed", `causal analysis failed: ${final.error_message ?? ""}`, 0);
      },
    );

  analyses
    .command("get")
    .description("status of a causal analysis")
    .argument("<id>", "causal-analysis id")
    .option("--json", "print the record (without the inline PNG unless --full)")
    .option("--full", "keep the inline PNG")
    .action(async (id: string, o: { json?: boolean; full?: boolean }, cmd: Command) => {
      const a = await (await clientOf(cmd)).getCausalAnalysis(id);
      if (o.json) printJson(compact(a, o.full === true));
      else printAnalysis(a);
    });

  analyses
    .command("list")
    .description("causal analyses of a prediction")
    .requiredOption("--prediction <id>", "prediction id")
    .option("--json", "print {items}")
    .action(async (o: { prediction: string; json?: boolean }, cmd: Command) => {
      const list = await (await clientOf(cmd)).listCausalAnalyses(o.prediction);
      if (o.json) {
        printJson(list);
        return;
      }
      out(["causal_analysis_id", "status", "target"].join("\t"));
      for (const a of list.items) out([a.causal_analysis_id, a.status, a.target].join("\t"));
    });

  analyses
    .command("graph")
    .description("the PNG of a completed causal analysis into a file")
    .argument("<id>", "causal-analysis id")
    .requiredOption("--out <file>", "PNG file to write")
    .option("--json", "print {out, bytes, sha256}")
    .action(async (id: string, o: { out: string; json?: boolean }, cmd: Command) => {
      const png = await (await clientOf(cmd)).getCausalAnalysisGraph(id);
      await writeFile(o.out, png);
      const result = {
        out: o.out,
        bytes: png.byteLength,
        sha256: createHash("sha256").update(png).digest("hex"),
      };
      if (o.json) printJson(result);
      else out(`${o.out}: ${result.bytes} bytes`);
    });
}
