/**
 * `causeway prepare`: looks at a local .h5ad the way a job would (obs columns and levels, the
 * roles, which matrix holds raw counts, observations per arm and cell type) and writes one cell
 * type's control/perturbed pair (and both together) as the service accepts them, each arm
 * subsampled to the observation cap with a fixed seed, keeping every sample. The reading and
 * writing are the runner's (`@causeway/runner/inputs`), loaded only by this command.
 */
import type { Command } from "commander";
import type { DatasetFields, DatasetInspection, WrittenInputs } from "@causeway/runner/inputs";
import { CausewayError } from "../errors.ts";
import { integer, note, out, printJson } from "../cli-support.ts";

/** The service's observation cap per split file and per merged arm (service-spec §8). */
export const MAX_OBS = 1000;

export interface ColumnOptions {
  conditionColumn?: string;
  controlLevel?: string;
  sampleColumn?: string;
  donorColumn?: string;
  cellTypeColumn?: string;
  cellType?: string;
}

export const fieldsOf = (o: ColumnOptions): DatasetFields => ({
  condition_column: o.conditionColumn ?? null,
  control_level: o.controlLevel ?? null,
  sample_column: o.sampleColumn ?? null,
  donor_column: o.donorColumn ?? null,
  cell_type_column: o.cellTypeColumn ?? null,
  cell_type: o.cellType ?? null,
});

/** Adds the column options shared by `prepare` and `submit`. */
export function columnOptions(cmd: Command): Command {
  return cmd
    .option("--condition-column <name>", "obs column of the condition (default: detected by name)")
    .option("--control-level <level>", "the control's level of the condition column")
    .option("--sample-column <name>", "obs column of the biological sample")
    .option("--donor-column <name>", "obs column of the donor (paired designs)")
    .option("--cell-type-column <name>", "obs column of the cell type")
    .option("--cell-type <level>", "analyse only this cell type");
}

/** Runner failures (JobFailure) and reader errors as the CLI's one-line errors. */
function asCliError(err: unknown): never {
  if (err instanceof Error && "code" in err && typeof err.code === "string")
    throw new CausewayError(err.code, err.message, 0);
  throw err;
}

export async function writeInputs(
  file: string,
  o: { fields: DatasetFields; perturbedLevel?: string; maxObs: number; seed: number; outDir: string },
): Promise<WrittenInputs> {
  const inputs = await import("@causeway/runner/inputs");
  return inputs.writeCellTypeInputs(file, o).catch(asCliError);
}

function printInspection(file: string, r: DatasetInspection): void {
  out(`${file}: ${r.nObs} observations × ${r.nVars} genes`);
  out(
    "counts: " +
      ("matrix" in r.counts
        ? `${r.counts.matrix === "X" ? "X" : r.counts.matrix} holds raw counts${r.counts.rejected.length > 0 ? ` (passed over: ${r.counts.rejected.join("; ")})` : ""}`
        : r.counts.problem),
  );
  out("obs columns:");
  for (const c of r.columns)
    out(
      `  ${c.name.padEnd(20)} ${String(c.nLevels).padStart(6)} values  ${c.levels
        .slice(0, 6)
        .map((l) => `${l.level} (${l.n})`)
        .join(", ")}${c.nLevels > 6 ? ", …" : ""}`,
    );
  const roles = Object.entries(r.roles).map(([k, v]) => `${k}=${v ?? "-"}`);
  out(`roles: ${roles.join(" ")}`);
  out(`shape: ${SHAPE_TEXT[r.shape]}`);
  if (r.control !== null) out(`control: ${r.control}; perturbed: ${r.perturbations.join(", ")}`);
  if (Object.keys(r.perArm).length > 0)
    out(
      `observations per arm: ${Object.entries(r.perArm)
        .map(([k, n]) => `${k} ${n}${n > MAX_OBS ? " (over the cap)" : ""}`)
        .join(", ")}`,
    );
  for (const [ct, arms] of Object.entries(r.perCellType))
    out(
      `  ${ct}: ${Object.entries(arms)
        .map(([k, n]) => `${k} ${n}`)
        .join(", ")}`,
    );
  for (const n of r.notes) note(`prepare: ${n}`);
  for (const p of r.problems) note(`prepare: ${p}`);
}

const SHAPE_TEXT: Record<DatasetInspection["shape"], string> = {
  merged: "merged (both arms in this file: submit with --dataset)",
  split_arm: "one arm of a split pair (submit with --control/--perturbed and --degs or --degs-table)",
  unknown: "unknown (no condition column)",
};

export function registerPrepare(program: Command): void {
  columnOptions(
    program
      .command("prepare")
      .description(
        "inspect a local .h5ad; with --out, write one cell type's control.h5ad, perturbed.h5ad and dataset.h5ad as the service accepts them",
      )
      .argument("<file>", ".h5ad file"),
  )
    .option("--perturbed-level <level>", "the perturbed level when the condition has several")
    .option("--out <dir>", "write the files into this folder")
    .option(
      "--max-obs <n>",
      `observations per arm at most (default ${MAX_OBS}, the service's cap)`,
      integer,
      MAX_OBS,
    )
    .option("--seed <n>", "seed of the subsampling", integer, 1)
    .option("--json", "print JSON; the last stdout line is the result")
    .action(
      async (
        file: string,
        o: ColumnOptions & {
          perturbedLevel?: string;
          out?: string;
          maxObs: number;
          seed: number;
          json?: boolean;
        },
      ) => {
        const fields = fieldsOf(o);
        if (o.out === undefined) {
          const inputs = await import("@causeway/runner/inputs");
          const report = await inputs.inspectDataset(file, fields).catch(asCliError);
          if (o.json) printJson(report);
          else printInspection(file, report);
          return;
        }
        const written = await writeInputs(file, {
          fields,
          ...(o.perturbedLevel ? { perturbedLevel: o.perturbedLevel } : {}),
          maxObs: o.maxObs,
          seed: o.seed,
          outDir: o.out,
        });
        if (o.json) {
          printJson(written);
          return;
        }
        for (const a of written.arms)
          note(
            `${a.level}: ${a.nAfter} of ${a.nBefore} observations${a.nAfter < a.nBefore ? " (subsampled)" : ""}; samples ${Object.entries(
              a.samples,
            )
              .map(([s, n]) => `${s} ${n}`)
              .join(", ")}`,
          );
        out(written.control);
        out(written.perturbed);
        out(written.dataset);
        note(
          `submit: causeway submit --dataset ${written.dataset}` +
            (fields.control_level ? ` --control-level ${fields.control_level}` : "") +
            `   (or --control ${written.control} --perturbed ${written.perturbed} --degs FILE)`,
        );
      },
    );
}
