/** `causeway top` and `causeway intermediaries`: parts of a result as tables. */
import type { Command } from "commander";
import { InvalidArgumentError } from "commander";
import { clientOf, integer, out, printJson } from "../cli-support.ts";
import type { PredictionStatus } from "../sdk.ts";

type Row = NonNullable<PredictionStatus["results"]>[number];

const cell = (v: unknown): string => (v === null || v === undefined ? "" : String(v));

/** Rows as TSV with a header: the columns in the order they first appear. */
export function tsv(rows: Record<string, unknown>[]): string[] {
  const columns: string[] = [];
  for (const r of rows) for (const k of Object.keys(r)) if (!columns.includes(k)) columns.push(k);
  return [columns.join("\t"), ...rows.map((r) => columns.map((c) => cell(r[c])).join("\t"))];
}

const format = (v: string): "tsv" | "json" => {
  if (v !== "tsv" && v !== "json") throw new InvalidArgumentError("tsv or json");
  return v;
};

export function registerTables(program: Command): void {
  program
    .command("top")
    .description("the top of a completed prediction's target table")
    .argument("<id>", "prediction id")
    .option("-n, --rows <n>", "rows (1..15000)", integer, 20)
    .option("--format <format>", "tsv (default) or json", format, "tsv")
    .action(async (id: string, o: { rows: number; format: "tsv" | "json" }, cmd: Command) => {
      const s = await (
        await clientOf(cmd)
      ).getPrediction(id, {
        max_rows: o.rows,
        max_columns: 1,
        max_source_influence_rows: 1,
      });
      const rows: Row[] = (s.results ?? []).slice(0, o.rows);
      if (o.format === "json") printJson(rows);
      else for (const line of tsv(rows)) out(line);
    });

  program
    .command("intermediaries")
    .description(
      "intermediary proteins on the causal paths to the top DEGs of a target_validation prediction",
    )
    .argument("<id>", "prediction id")
    .option("--top-n-degs <n>", "DEGs to follow (1..10000)", integer, 20)
    .option("--deg <symbol>", "only the paths to this DEG")
    .option("--json", "print the IntermediaryProteinsResponse")
    .action(async (id: string, o: { topNDegs: number; deg?: string; json?: boolean }, cmd: Command) => {
      const r = await (
        await clientOf(cmd)
      ).getIntermediaryProteins(id, { top_n_degs: o.topNDegs, deg: o.deg });
      if (o.json) {
        printJson(r);
        return;
      }
      out("protein");
      for (const p of r.proteins) out(p);
    });
}
