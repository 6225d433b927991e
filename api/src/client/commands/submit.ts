/** `causeway submit`: a prediction from local files (merged or split shape, a DEG list or a DE table). */
import { openAsBlob } from "node:fs";
import { mkdtemp, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { basename, join } from "node:path";
import { Option, type Command } from "commander";
import {
  GeneListFormatError,
  parseGeneList,
  PERTURBATION_TYPES,
  type PerturbationType,
} from "@causeway/contract";
import { CausewayError } from "../errors.ts";
import type { PredictionSubmission } from "../sdk.ts";
import { clientOf, integer, note, number, out, printJson, proteinTarget } from "../cli-support.ts";
import { selectDegs } from "../de-table.ts";
import { causalPathFields, withCausalPathOptions, type CausalPathOptions } from "../causal-path-options.ts";
import { fieldsOf, MAX_OBS, writeInputs, type ColumnOptions } from "./prepare.ts";
import { waitAndReport } from "./report-status.ts";

/** DEGs from a file: a JSON array, a signed {"up", "down"} list (sent as one list), or plain text (parseGeneList). */
async function readDegs(path: string): Promise<string[]> {
  const text = await readFile(path, "utf8").catch(() => {
    throw new CausewayError("invalid_input", `cannot read the DEG file ${path}`, 0);
  });
  try {
    const list = parseGeneList(text);
    if (list.header !== null)
      note(`degs: the first line of ${basename(path)} ("${list.header}") is a header, not a gene`);
    if (list.signed !== null) note(`degs: the up and down lists of ${basename(path)} are sent as one list`);
    return list.genes;
  } catch (err) {
    if (err instanceof GeneListFormatError)
      throw new CausewayError("invalid_input", `${path}: ${err.message}`, 0);
    throw err;
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

export function registerSubmit(program: Command): void {
  withCausalPathOptions(
    program
      .command("submit")
      .description("submit a prediction: --dataset FILE, or --control FILE --perturbed FILE --degs FILE")
      .option("--dataset <file>", "merged shape: one .h5ad file")
      .option("--control <file>", "split shape: control .h5ad")
      .option("--perturbed <file>", "split shape: perturbed .h5ad")
      .option("--degs <file>", "split shape: DEG symbols or Ensembl ids (JSON array, or one per line)")
      .option(
        "--degs-table <file>",
        "split shape: a DE table (DESeq2, edgeR, limma, Seurat, scanpy; tab, comma or semicolon separated); its DEGs are sent",
      )
      .option("--padj <n>", "with --degs-table: adjusted p-value below this (default 0.05)", number, 0.05)
      .option("--lfc <n>", "with --degs-table: |log2 fold change| at least this (default 1)", number, 1)
      .option(
        "--degs-table-gene-column <name>",
        "with --degs-table: the gene column (default: hgnc_symbol, else a symbol or gene column by name, else the row names)",
      )
      .addOption(
        new Option("--species <species>", "species of the gene identifiers").choices(["human", "mouse"]),
      )
      .addOption(
        new Option(
          "--perturbation-type <type>",
          "what was done to the cells (model v4 weighs candidate kinds by it; default unknown)",
        ).choices(PERTURBATION_TYPES),
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
        perturbation_type: o.perturbationType,
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
}

interface SubmitOptions extends ColumnOptions, CausalPathOptions {
  degsTable?: string;
  degsTableGeneColumn?: string;
  padj: number;
  lfc: number;
  species?: "human" | "mouse";
  perturbationType?: PerturbationType;
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
