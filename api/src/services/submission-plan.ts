/**
 * Step (d) of POST /v1/predictions, first half: the received form and files become a plan
 * (input shape, job type, target, parameters, model version, label, files to validate), or a
 * 422 listing every problem of the form at once. Rule 2 (account policy) is a 403 and comes
 * before any shape problem; the model version is looked up only for a well-formed form.
 */
import { basename } from "node:path";
import {
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
  ];
  if (items.length > 0) throw new RequestValidationError(items);

  const modelVersion = await resolveModelVersion(ctx, form.model_version);
  const target = form.target === null ? null : `${parseEntityId(form.target)!.symbol}|PROTEIN`;
  return {
    shape: shape.shape,
    jobType: form.job_type,
    target,
    degs: degs.degs,
    params: paramsOf(form),
    modelVersion,
    label: form.label ?? defaultLabel(files, form.job_type, target, ctx.now()),
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

/** The degs field of the split shape: a JSON array of gene symbols. */
function parseDegs(raw: string | undefined): { degs: string[] | null; items: ValidationItem[] } {
  if (raw === undefined)
    return { degs: null, items: [{ loc: ["body", "degs"], msg: "Field required", type: "missing" }] };
  let json: unknown;
  try {
    json = JSON.parse(raw);
  } catch {
    const msg = "degs must be a JSON array of gene symbols";
    return { degs: null, items: [{ loc: ["body", "degs"], msg, type: "json_invalid" }] };
  }
  const list = DegList.safeParse(json);
  if (list.success) return { degs: list.data, items: [] };
  return { degs: null, items: zodItems(list.error.issues, ["body", "degs"]) };
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
  if (target === null || parseEntityId(target)?.type === "PROTEIN") return [];
  const msg = "target must be a protein entity id such as STAT1|PROTEIN";
  return [{ loc: ["body", "target"], msg, type: "value_error" }];
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
