/**
 * Step (d) of POST /v1/predictions, first half: the received form and files become a plan
 * (input shape, job type, target, parameters, model version, label, files to validate), or a
 * 422 listing every problem of the form at once. Rule 2 (account policy) is a 403 and comes
 * before any shape problem; the model version is looked up only for a well-formed form.
 */
import { basename } from "node:path";
import {
  DatasetOptions,
  PredictionParams,
  parseEntityId,
  targetValidationViolations,
  type JobType,
  type TargetValidationField,
} from "@causeway/contract";
import type { AppContext } from "../context.ts";
import type { Account } from "../db/accounts.ts";
import { getDefaultModel, getModel } from "../db/models.ts";
import {
  JobTypeNotAllowed,
  RequestValidationError,
  invalid,
  zodItems,
  type ValidationItem,
} from "../errors.ts";
import { DegList, PredictionForm } from "../schemas/predictions.ts";
import { TABLE_ADVICE, tableLikeEntries, tableLikeText } from "./deg-list-guard.ts";

export const FILE_FIELDS = ["dataset", "dataset_control", "dataset_pert"] as const;
export type FileField = (typeof FILE_FIELDS)[number];

export interface ReceivedFile {
  path: string;
  filename: string;
  bytes: number;
}

/** The request body as received: text fields, and files already written to a temp directory. */
export interface ReceivedUpload {
  fields: Record<string, string>;
  files: Partial<Record<FileField, ReceivedFile>>;
}

type Shape = "merged" | "split";

export interface Plan {
  shape: Shape;
  jobType: JobType;
  target: string | null;
  degs: string[] | null;
  params: PredictionParams;
  modelVersion: string;
  label: string;
  /** Columns, control level, cell type and species the form named (detection for the rest). */
  dataset: DatasetOptions;
  /** The degs list as the model version's symbol table reads it; null when it could not be checked. */
  degsRecognised: { n_degs: number; n_degs_recognised: number } | null;
  /** The uploaded datasets to validate, by form field. */
  validate: [FileField, string][];
}

/** Validates the form (rules 1 and 2, bounds, degs, model version) into a submission plan. */
export async function planSubmission(
  ctx: AppContext,
  account: Account,
  upload: ReceivedUpload,
): Promise<Plan> {
  const form = parseForm(upload.fields);
  // Rule 2 is account policy, answered before shape problems: 403 job_type_not_allowed.
  if (account.tier === "external" && form.job_type !== "target_validation") throw new JobTypeNotAllowed();
  const { files } = upload;
  const shape = inputShape(files, form.degs !== undefined);
  const degs =
    shape.shape === "split" && (files.dataset_control || files.dataset_pert)
      ? parseDegs(form.degs)
      : { degs: null, items: [] };
  const items = [
    ...shape.items,
    ...degs.items,
    ...ruleOneItems(form, shape.shape),
    ...targetItems(form.target),
    ...datasetItems(form, shape.shape),
  ];
  if (items.length > 0) throw new RequestValidationError(items);

  const modelVersion = await resolveModelVersion(ctx, form.model_version);
  const target = form.target === null ? null : `${parseEntityId(form.target)!.symbol}|PROTEIN`;
  const dataset = DatasetOptions.parse({
    condition_column: form.condition_column,
    control_level: form.control_level,
    sample_column: form.sample_column,
    donor_column: form.donor_column,
    cell_type_column: form.cell_type_column,
    cell_type: form.cell_type,
    species: form.species,
  });
  const degsRecognised =
    degs.degs === null
      ? null
      : await recogniseDegs(ctx, modelVersion, degs.degs, dataset.species, form.job_type);
  return {
    shape: shape.shape,
    jobType: form.job_type,
    target,
    degs: degs.degs,
    params: paramsOf(form),
    modelVersion,
    label: form.label ?? defaultLabel(files, form.job_type, target, ctx.now()),
    dataset,
    degsRecognised,
    validate: filesToValidate(shape.shape, files),
  };
}

function parseForm(fields: Record<string, string>): PredictionForm {
  const parsed = PredictionForm.safeParse(fields);
  if (!parsed.success) throw new RequestValidationError(zodItems(parsed.error.issues, ["body"]));
  return parsed.data;
}

/** Which input shape the files make, and what is wrong with them. */
function inputShape(
  files: ReceivedUpload["files"],
  hasDegs: boolean,
): { shape: Shape; items: ValidationItem[] } {
  const { dataset, dataset_control: control, dataset_pert: pert } = files;
  if (dataset && (control || pert)) {
    const msg = "give either dataset or dataset_control + dataset_pert, not both";
    return { shape: "merged", items: [{ loc: ["body", "dataset"], msg, type: "value_error" }] };
  }
  if (dataset) {
    const msg = "degs belongs to the split input shape";
    return { shape: "merged", items: hasDegs ? [{ loc: ["body", "degs"], msg, type: "value_error" }] : [] };
  }
  const missing = (field: FileField): ValidationItem => ({
    loc: ["body", field],
    msg: "Field required",
    type: "missing",
  });
  if (!control && !pert) return { shape: "split", items: [missing("dataset")] };
  const items: ValidationItem[] = [];
  if (!control) items.push(missing("dataset_control"));
  if (!pert) items.push(missing("dataset_pert"));
  return { shape: "split", items };
}

/** The degs field of the split shape: a JSON array of gene symbols, not a pasted DE table. */
function parseDegs(raw: string | undefined): { degs: string[] | null; items: ValidationItem[] } {
  if (raw === undefined)
    return { degs: null, items: [{ loc: ["body", "degs"], msg: "Field required", type: "missing" }] };
  const tableItem = (seen: string): ValidationItem => ({
    loc: ["body", "degs"],
    msg: `degs looks like a table, not a list of genes: it holds ${seen}. ${TABLE_ADVICE}`,
    type: "deg_list_is_table",
  });
  let json: unknown;
  try {
    json = JSON.parse(raw);
  } catch {
    const seen = tableLikeText(raw);
    if (seen !== null) return { degs: null, items: [tableItem(seen)] };
    const msg = "degs must be a JSON array of gene symbols";
    return { degs: null, items: [{ loc: ["body", "degs"], msg, type: "json_invalid" }] };
  }
  const list = DegList.safeParse(json);
  if (!list.success) return { degs: null, items: zodItems(list.error.issues, ["body", "degs"]) };
  const seen = tableLikeEntries(list.data);
  if (seen !== null) return { degs: null, items: [tableItem(seen)] };
  return { degs: list.data, items: [] };
}

/** Rule 1 of the contract, in the form's words: where each violation points and how it reads. */
const RULE_ONE_ITEMS: Record<TargetValidationField, ValidationItem> = {
  target: { loc: ["body", "target"], msg: "target is required for target_validation", type: "missing" },
  inputs: {
    loc: ["body", "dataset"],
    msg: "target_validation requires the split inputs (dataset_control, dataset_pert, degs)",
    type: "value_error",
  },
};

function ruleOneItems(form: PredictionForm, shape: Shape): ValidationItem[] {
  return targetValidationViolations({ job_type: form.job_type, target: form.target, inputs: { shape } }).map(
    (field) => ({ ...RULE_ONE_ITEMS[field] }),
  );
}

function targetItems(target: string | null): ValidationItem[] {
  if (target === null) return [];
  const parsed = parseEntityId(target);
  if (parsed?.type === "PROTEIN") return [];
  // A bare symbol or an RNA id: the protein of that gene is what a target means.
  const symbol = parsed ? parsed.symbol : /^[^|>\s]+$/.test(target.trim()) ? target.trim() : null;
  const msg =
    symbol === null
      ? "target must be a protein entity id such as STAT1|PROTEIN"
      : `target must be a protein entity id: did you mean ${symbol}|PROTEIN?`;
  return [{ loc: ["body", "target"], msg, type: "value_error" }];
}

function datasetItems(form: PredictionForm, shape: Shape): ValidationItem[] {
  if (shape !== "split" || form.control_level === null) return [];
  const msg = "control_level belongs to the merged shape; in the split shape dataset_control is the control";
  return [{ loc: ["body", "control_level"], msg, type: "value_error" }];
}

/** Fewest recognised DEGs a job type can score (model.md §7.1), checked before anything is stored. */
const MIN_RECOGNISED_DEGS: Record<JobType, number> = { target_id: 5, target_validation: 1 };

/**
 * The degs list read with the model version's symbol table, as the job will read it: 422 when too
 * few entries are genes (fewer than the job type needs, or under half of the list, the rule the
 * count matrix follows). Best effort: a version whose tables cannot be read is left to the job.
 */
async function recogniseDegs(
  ctx: AppContext,
  version: string,
  degs: string[],
  species: DatasetOptions["species"],
  jobType: JobType,
): Promise<{ n_degs: number; n_degs_recognised: number } | null> {
  let lookup;
  try {
    lookup = await ctx.runner.geneLookup(ctx.store, version);
  } catch {
    return null;
  }
  if (species === "mouse" && !lookup.hasOrthologues)
    throw invalid(
      ["body", "species"],
      `model version ${version} has no mouse–human orthologue table; species=mouse is not available`,
    );
  const distinct = [...new Map(degs.map((d) => [d.trim().toLowerCase(), d.trim()])).values()].filter(
    (d) => d !== "",
  );
  const resolved = lookup.resolveAll(distinct, species);
  const n = resolved.n_recognised;
  const needed = MIN_RECOGNISED_DEGS[jobType];
  if (n < needed || n * 2 < distinct.length) {
    const missed = resolved.genes.filter((g) => g.symbol === null && g.ambiguous === undefined);
    const several = resolved.genes.filter((g) => g.ambiguous !== undefined);
    const hints = missed
      .filter((g) => g.suggestion !== undefined)
      .slice(0, 3)
      .map((g) => `${g.input} → ${g.suggestion}`);
    const msg =
      `only ${n} of ${distinct.length} degs entries are recognised as ${species} genes` +
      ` (${n < needed ? `at least ${needed} needed` : "at least half needed"}); unrecognised: ` +
      missed
        .slice(0, 5)
        .map((g) => JSON.stringify(g.input))
        .join(", ") +
      (several.length > 0
        ? `; ambiguous (naming several genes, send the symbol meant): ` +
          several
            .slice(0, 5)
            .map((g) => `${JSON.stringify(g.input)} (${g.ambiguous!.join(" or ")})`)
            .join(", ")
        : "") +
      (hints.length > 0 ? `; did you mean ${hints.join(", ")}` : "") +
      (species === "human" ? "; for mouse symbols set species=mouse" : "");
    throw invalid(["body", "degs"], msg, "too_few_recognised_degs");
  }
  return { n_degs: distinct.length, n_degs_recognised: n };
}

/** The requested model version, or the default one (also one still importing); 422 when there is none. */
async function resolveModelVersion(ctx: AppContext, requested: string | null): Promise<string> {
  const model = requested === null ? await getDefaultModel(ctx.db) : await getModel(ctx.db, requested);
  if (model) return model.version;
  // A version still being imported at start-up: accepted, the job waits for it (model-imports.ts).
  const importing =
    requested === null
      ? ctx.modelImports?.pendingDefault()
      : ctx.modelImports?.pending(requested)
        ? requested
        : undefined;
  if (importing !== undefined) return importing;
  const msg =
    requested === null ? "no default model version is registered" : `unknown model version ${requested}`;
  throw invalid(["body", "model_version"], msg, "unknown_model_version");
}

function paramsOf(form: PredictionForm): PredictionParams {
  return PredictionParams.parse({
    deg_significance_fold: form.deg_significance_fold,
    min_mean_expression: form.min_mean_expression,
    n_randomizations: form.n_randomizations,
    top_n_causal_degs: form.top_n_causal_degs,
    min_path_fraction: form.min_path_fraction,
    min_path_probability: form.min_path_probability,
    max_path_length: form.max_path_length,
    min_degs_fold_uniform: form.min_degs_fold_uniform,
    prefix: form.prefix,
  });
}

/** "<first file's stem> <job type> [<target>] <YYYY-MM-DD HH:MM>" when the form gives no label. */
function defaultLabel(
  files: ReceivedUpload["files"],
  jobType: JobType,
  target: string | null,
  now: Date,
): string {
  const first = files.dataset ?? files.dataset_control!;
  const stem =
    basename(first.filename || "dataset")
      .replace(/\.h5ad$/i, "")
      .slice(0, 80) || "dataset";
  return `${stem} ${jobType}${target ? ` ${target}` : ""} ${now.toISOString().slice(0, 16).replace("T", " ")}`;
}

function filesToValidate(shape: Shape, files: ReceivedUpload["files"]): [FileField, string][] {
  if (shape === "merged") return [["dataset", files.dataset!.path]];
  return [
    ["dataset_control", files.dataset_control!.path],
    ["dataset_pert", files.dataset_pert!.path],
  ];
}
