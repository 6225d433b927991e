/**
 * Status records as clients see them, one presenter per tier (OWASP API3): external accounts
 * never get error_detail, full score columns, or artifact links on target_validation jobs.
 * Fields whose value is unknown are omitted where the contract marks them optional.
 */
import { ARTIFACTS } from "@causeway/contract";
import { numberCell } from "@causeway/runner/artifacts";
import type { ObjectStore } from "@causeway/runner/storage";
import type { Account } from "../../db/accounts.ts";
import type { CausalAnalysisRow, PredictionRow, ResultFileMap } from "../../db/jobs.ts";
import type { PredictionStatusResponse } from "../../schemas/predictions.ts";
import {
  findTsvRow,
  readArtifact,
  readJsonArtifact,
  readMatrixPreview,
  readTsvHead,
  resultRows,
} from "./artifacts.ts";

export interface PresentOptions {
  maxRows: number;
  maxSourceInfluenceRows: number;
  maxColumns: number;
  target?: string | undefined;
  /** Whether to read artifacts (status route) or only the row (list route). */
  withResults: boolean;
  /**
   * false: `results` and `source_influence_matrix` are left null without reading anything (the
   * status-body renderer makes them as JSON text and splices them in). Default true.
   */
  withPreviews?: boolean;
  /** Download links of the result files (a cache of signed links); signs afresh by default. */
  links?: (files: ResultFileMap) => Promise<{ name: string; url: string }[]>;
}

const iso = (d: Date | null): string | null => (d ? d.toISOString() : null);

/** Presigned links of every listed file, by stable basename. */
export async function artifactLinks(store: ObjectStore, files: ResultFileMap | null, ttlSeconds: number) {
  const out: { name: string; url: string }[] = [];
  for (const name of Object.keys(files ?? {}).sort()) {
    out.push({
      name,
      url: await store.presignGet(files![name]!, { filename: name, expiresInSeconds: ttlSeconds }),
    });
  }
  return out;
}

/** The result-set prefix the status route previews (model.md §12.2). */
export function primaryPrefix(p: PredictionRow): string {
  return p.result_sets?.[0] ?? "";
}

export async function presentPrediction(
  p: PredictionRow,
  account: Account,
  store: ObjectStore,
  presignTtl: number,
  o: PresentOptions,
): Promise<PredictionStatusResponse> {
  const internal = account.tier === "internal";
  const out: PredictionStatusResponse = {
    prediction_id: p.id,
    status: p.status,
    created_at: p.created_at.toISOString(),
    started_at: iso(p.started_at),
    completed_at: iso(p.completed_at),
    error_message: p.error_message,
    error_code: p.error_code,
    label: p.label,
    job_type: p.job_type,
    model_version: p.model_version,
    target: p.target,
    dataset_summary: p.dataset_summary,
  };
  if (internal) out.error_detail = p.error_detail;
  if (p.processing_step !== null) out.processing_step = p.processing_step;
  if (p.progress_pct !== null) out.progress_pct = p.progress_pct;
  if (p.warnings && p.warnings.length > 0) out.warnings = p.warnings;
  if (!o.withResults) return out;

  const prefix = primaryPrefix(p);
  const files = p.result_files;
  if (p.status === "completed") {
    // Only the previewed rows are read (ranged reads), not the whole artifacts.
    const previews = o.withPreviews !== false;
    const scores = previews
      ? await readTsvHead(store, files, prefix + ARTIFACTS.targetScores, o.maxRows)
      : null;
    out.results = scores !== null ? resultRows(scores, o.maxRows, internal) : null;
    out.source_influence_matrix = !previews
      ? null
      : await readMatrixPreview(
          store,
          files,
          prefix + ARTIFACTS.sourceInfluenceMatrix,
          prefix + ARTIFACTS.sourceInfluenceIds,
          o.maxSourceInfluenceRows,
          o.maxColumns,
        );
    if (!internal && p.job_type === "target_validation") {
      out.target_validation_score = await targetValidationScore(store, p, prefix, o.target);
    }
  }
  const externalValidation = !internal && p.job_type === "target_validation";
  if (!externalValidation && files && Object.keys(files).length > 0) {
    out.artifacts = o.links ? await o.links(files) : await artifactLinks(store, files, presignTtl);
  }
  return out;
}

async function targetValidationScore(
  store: ObjectStore,
  p: PredictionRow,
  prefix: string,
  queryTarget: string | undefined,
): Promise<{ id: string; percentage_degs_significant: number | null } | null> {
  if (queryTarget === undefined || queryTarget === p.target) {
    const json = await readJsonArtifact(store, p.result_files, prefix + ARTIFACTS.targetValidation);
    if (json && typeof json === "object") {
      const j = json as { target?: unknown; percentage_degs_significant?: unknown };
      const pct = typeof j.percentage_degs_significant === "number" ? j.percentage_degs_significant : null;
      return {
        id: typeof j.target === "string" ? j.target : (p.target ?? ""),
        percentage_degs_significant: pct,
      };
    }
    if (queryTarget === undefined) return null;
  }
  // A lookup of another candidate in the score table.
  const scores = await readArtifact(store, p.result_files, prefix + ARTIFACTS.targetScores);
  const row = scores ? findTsvRow(scores.toString("utf8"), queryTarget!) : null;
  return row
    ? { id: queryTarget!, percentage_degs_significant: numberCell(row.percentage_degs_significant) }
    : null;
}

export async function presentCausalAnalysis(c: CausalAnalysisRow, store: ObjectStore, presignTtl: number) {
  let results: { image_base64: string } | null = null;
  if (c.status === "completed") {
    const png = await readArtifact(store, c.result_files, ARTIFACTS.causalGraph);
    results = png ? { image_base64: png.toString("base64") } : null;
  }
  const files = c.result_files;
  return {
    causal_analysis_id: c.id,
    status: c.status,
    prediction_id: c.prediction_id,
    target: c.target,
    created_at: c.created_at.toISOString(),
    started_at: iso(c.started_at),
    completed_at: iso(c.completed_at),
    error_message: c.error_message,
    results,
    artifacts: files && Object.keys(files).length > 0 ? await artifactLinks(store, files, presignTtl) : null,
  };
}
