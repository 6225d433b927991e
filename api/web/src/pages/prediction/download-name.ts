/**
 * A result file's name with the prediction's identity in front (`<label>_<short id>_<file>`), so
 * that the files of two predictions do not collide as `target_scores (1).tsv`. Only characters
 * every file system takes; a label is cut short.
 */
export function downloadName(
  file: string,
  p: { prediction_id: string; label?: string | null | undefined },
): string {
  const short = p.prediction_id.slice(0, 8);
  const label = (p.label ?? "")
    .normalize("NFKD")
    .replace(/[\u0300-\u036f]/g, "")
    .replace(/[^A-Za-z0-9._-]+/g, "-")
    .replace(/-{2,}/g, "-")
    .replace(/^[-._]+|[-._]+$/g, "")
    .slice(0, 48)
    .replace(/[-._]+$/g, "");
  return `${label ? `${label}_` : ""}${short}_${file}`;
}

/** The document's title for a prediction: its label (or short id) and status. */
export function predictionTitle(
  p: { prediction_id: string; label?: string | null | undefined },
  status: string,
): string {
  const name = p.label?.trim() || `Prediction ${p.prediction_id.slice(0, 8)}`;
  return `${name} (${status}) · causeway`;
}
