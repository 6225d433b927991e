/** A prediction's status as the command line prints it, and waiting for one with a progress bar. */
import { printJson, compactStatus, out } from "../cli-support.ts";
import { CausewayError } from "../errors.ts";
import { progressReporter } from "../progress.ts";
import type { CausewayClient, PredictionStatus } from "../sdk.ts";
import { waitForPrediction } from "../wait.ts";

/** Waits with a progress bar; a failed job prints its record, then fails with its code. */
export async function waitAndReport(
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

export function printStatus(s: PredictionStatus): void {
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
