/**
 * A new prediction, with everything `causeway submit` offers under the same names: the split
 * pair with its DEGs (a list or a DE table) or one merged file with its columns and cell type
 * (read from the file before upload), species, perturbation type when the model takes it, the
 * question, and every parameter with its default, bounds and explanation. Opened from a failed
 * prediction ("fix and resubmit"), it comes filled in with what was sent and what the failure
 * asked for.
 */
import { useEffect, useRef, useState } from "preact/hooks";
import { PARAMETERS } from "@causeway/api/schemas/field-docs.ts";
import { PredictionCreateForm } from "@causeway/api/schemas/predictions.ts";
import { explain } from "../../explain.ts";
import { DropZone } from "../../components/DropZone.tsx";
import { PARAM_SPECS, boundsText, checkParam } from "../../params.ts";
import { navigate } from "../../router.ts";
import { HELP, PERTURBATION_TYPES } from "./cli-fields.ts";
import { DatasetColumns } from "./DatasetColumns.tsx";
import { DegsField, degsProblem, genesOf } from "./DegsField.tsx";
import { draft } from "./draft.ts";
import { fileProblem, SPLIT_OBS_CAP } from "./file-check.ts";
import { MAX_DEGS } from "./deg-check.ts";
import { cellTypeChoice, emptyForm, submissionOf, type FormState } from "./form-state.ts";
import { lastSubmission } from "./last-submission.ts";
import { uploadPrediction, type UploadProgress } from "./upload.ts";

/** The contract adds perturbation_type with the model that reads it; the field shows from then on. */
const TAKES_PERTURBATION_TYPE = "perturbation_type" in PredictionCreateForm.shape;

const LABELS = { control: "Control cells", perturbed: "Perturbed cells", merged: "Merged dataset" } as const;

/** What the page can tell of a chosen file before upload (file-check.ts), and whether it is still reading it. */
function useFileProblem(
  file: File | null,
  label: string,
  obsCap: number | null,
): { checking: boolean; problem: string | null } {
  const [r, setR] = useState<{ file: File | null; problem: string | null }>({ file: null, problem: null });
  useEffect(() => {
    if (!file) return;
    let live = true;
    void fileProblem(file, label, { obsCap }).then(
      (problem) => live && setR({ file, problem }),
      () => live && setR({ file, problem: null }),
    );
    return () => {
      live = false;
    };
  }, [file]);
  return file === null
    ? { checking: false, problem: null }
    : { checking: r.file !== file, problem: r.file === file ? r.problem : null };
}

/** Megabytes with two decimals below 10 MB (a 2 MB upload moves by hundredths), one above. */
const mb = (n: number, total: number) => {
  const digits = total < 1e7 ? 2 : 1;
  return (n / 1e6).toLocaleString("en", { maximumFractionDigits: digits, minimumFractionDigits: digits });
};

export function NewPrediction({ initial }: { initial?: FormState | undefined }) {
  // A form kept when the key was refused mid-form comes back first (draft.ts).
  const [restored] = useState(() => draft.take());
  const [s, setS] = useState<FormState>(restored ?? initial ?? emptyForm);
  const set = (patch: Partial<FormState>) => setS((old) => ({ ...old, ...patch }));
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const [upload, setUpload] = useState<UploadProgress | null>(null);
  const cancelUpload = useRef<AbortController | null>(null);
  const [cellTypeLevels, setCellTypeLevels] = useState<string[]>([]);
  const latest = useRef(s);
  latest.current = s;
  useEffect(() => {
    // The key was refused (revoked or expired): the shell shows the sign-in page instead of this
    // one; the text of the form is kept for when the person has signed in again.
    const keep = () => draft.save(latest.current);
    window.addEventListener("causeway:unauthorized", keep);
    return () => window.removeEventListener("causeway:unauthorized", keep);
  }, []);
  useEffect(() => () => cancelUpload.current?.abort(), []);
  const split = s.shape === "split";
  const control = useFileProblem(split ? s.control : null, LABELS.control, SPLIT_OBS_CAP);
  const perturbed = useFileProblem(split ? s.perturbed : null, LABELS.perturbed, SPLIT_OBS_CAP);
  const merged = useFileProblem(split ? null : s.merged, LABELS.merged, null);

  const genes = genesOf(s.degs);
  const paramErrors = Object.fromEntries(
    PARAM_SPECS.map((p) => [p.name, checkParam(p, s.params[p.name] ?? "")]),
  );
  const missing: string[] = [];
  if (s.shape === "split") {
    if (!s.control) missing.push("the control file");
    if (!s.perturbed) missing.push("the perturbed file");
    const degs = degsProblem(s.degs);
    if (degs) missing.push(degs);
    else if (genes.length === 0) missing.push("the DEGs");
  } else if (!s.merged) missing.push("the merged file");
  else {
    // A merged file of several cell types is refused whole (multiple_cell_types): one is chosen.
    const choice = cellTypeChoice(cellTypeLevels, s.columns.cell_type);
    if (choice === "choose") missing.push(`the cell type (the file holds ${cellTypeLevels.length})`);
    if (choice === "unknown") missing.push("a cell type of this file");
  }
  if (s.jobType === "target_validation" && s.target.trim() === "") missing.push("the target");
  const files = split ? [control, perturbed] : [merged];
  if (files.some((f) => f.checking)) missing.push("a moment: the page is reading the files");
  const invalid =
    Object.values(paramErrors).some((e) => e !== null) ||
    genes.length > MAX_DEGS ||
    files.some((f) => f.problem !== null);
  // The service's field names in the form's words, with the file chosen (explain.ts).
  const labels = {
    dataset_control: s.control ? `${LABELS.control} (${s.control.name})` : LABELS.control,
    dataset_pert: s.perturbed ? `${LABELS.perturbed} (${s.perturbed.name})` : LABELS.perturbed,
    dataset: s.merged ? `${LABELS.merged} (${s.merged.name})` : LABELS.merged,
  };

  const submit = async (e: Event) => {
    e.preventDefault();
    setError(null);
    setBusy(true);
    const cancel = new AbortController();
    cancelUpload.current = cancel;
    setUpload({ loaded: 0, total: 0 });
    try {
      const { prediction_id } = await uploadPrediction(
        submissionOf(s, TAKES_PERTURBATION_TYPE),
        setUpload,
        cancel.signal,
      );
      lastSubmission.remember(prediction_id, s);
      navigate(`/app/predictions/${prediction_id}`);
    } catch (err) {
      setError(
        cancel.signal.aborted
          ? "Upload cancelled: no prediction was created. The form is kept; submit again when ready."
          : explain(err, labels),
      );
    } finally {
      cancelUpload.current = null;
      setUpload(null);
      setBusy(false);
    }
  };

  return (
    <section class="new-prediction">
      <h1>New prediction</h1>
      {restored && (
        <p class="warn-line" role="status" data-testid="form-restored">
          The form was kept while you signed in again. Choose the files again
          {restored.degs.mode === "table" ? " (the .h5ad files and the DE table)" : ""}: a web page cannot
          keep the files you chose.
        </p>
      )}
      <form class="stack" onSubmit={(e) => void submit(e)}>
        <fieldset class="card">
          <legend>Data</legend>
          <div class="segmented" role="radiogroup" aria-label="Upload shape">
            <label>
              <input
                type="radio"
                name="shape"
                value="split"
                checked={s.shape === "split"}
                onChange={() => set({ shape: "split" })}
              />
              Split: control and perturbed .h5ad with their DEGs
            </label>
            <label>
              <input
                type="radio"
                name="shape"
                value="merged"
                checked={s.shape === "merged"}
                onChange={() => set({ shape: "merged" })}
              />
              Merged: one .h5ad with both conditions (--dataset)
            </label>
          </div>
          {s.shape === "split" ? (
            <>
              <div class="drops">
                <DropZone
                  name="dataset_control"
                  label="Control cells (--control)"
                  hint="Drop the control .h5ad here or choose it"
                  accept=".h5ad"
                  file={s.control}
                  problem={control.problem}
                  onFile={(control) => set({ control })}
                />
                <DropZone
                  name="dataset_pert"
                  label="Perturbed cells (--perturbed)"
                  hint="Drop the perturbed .h5ad here or choose it"
                  accept=".h5ad"
                  file={s.perturbed}
                  problem={perturbed.problem}
                  onFile={(perturbed) => set({ perturbed })}
                />
              </div>
              <p class="help">
                Each split file holds at most 1,000 observations; for a larger file, upload it merged, or
                write a subsampled pair with causeway prepare --max-obs 1000.
              </p>
              <DegsField state={s.degs} species={s.species} onChange={(degs) => set({ degs })} />
            </>
          ) : (
            <>
              <div class="drops">
                <DropZone
                  name="dataset"
                  label="Merged dataset (--dataset)"
                  hint="Drop the .h5ad here or choose it"
                  accept=".h5ad"
                  file={s.merged}
                  problem={merged.problem}
                  onFile={(merged) => set({ merged })}
                />
              </div>
              <DatasetColumns
                file={s.merged}
                values={s.columns}
                onChange={(columns) => set({ columns })}
                onCellTypes={setCellTypeLevels}
              />
            </>
          )}
          <div class="grid3">
            <div>
              <label for="species">species (--species)</label>
              <select
                id="species"
                name="species"
                value={s.species}
                onChange={(e) =>
                  set({ species: (e.target as HTMLSelectElement).value as FormState["species"] })
                }
              >
                <option value="human">human</option>
                <option value="mouse">mouse</option>
              </select>
              <p class="help">{HELP.species}</p>
            </div>
            {TAKES_PERTURBATION_TYPE && (
              <div>
                <label for="perturbation_type">perturbation type (--perturbation-type)</label>
                <select
                  id="perturbation_type"
                  name="perturbation_type"
                  value={s.perturbationType}
                  onChange={(e) => set({ perturbationType: (e.target as HTMLSelectElement).value })}
                >
                  <option value="">not given</option>
                  {PERTURBATION_TYPES.map((t) => (
                    <option key={t} value={t}>
                      {t}
                    </option>
                  ))}
                </select>
                <p class="help">{HELP.perturbationType}</p>
              </div>
            )}
          </div>
        </fieldset>

        <fieldset class="card">
          <legend>Question</legend>
          <div class="grid2">
            <div>
              <label for="job_type">Job type (--job-type)</label>
              <select
                id="job_type"
                name="job_type"
                value={s.jobType}
                onChange={(e) =>
                  set({ jobType: (e.target as HTMLSelectElement).value as FormState["jobType"] })
                }
              >
                <option value="target_id">Target identification: rank every protein</option>
                <option value="target_validation">Target validation: explain one protein</option>
              </select>
              <p class="help">{PARAMETERS.job_type.summary}</p>
            </div>
            <div>
              <label for="target">
                Target (--target){s.jobType === "target_validation" ? "" : ", target validation only"}
              </label>
              <input
                id="target"
                name="target"
                placeholder="STAT1"
                disabled={s.jobType !== "target_validation"}
                value={s.target}
                onInput={(e) => set({ target: (e.target as HTMLInputElement).value })}
              />
              <p class="help">{PARAMETERS.target.summary}</p>
            </div>
            <div>
              <label for="label">Label (--label)</label>
              <input
                id="label"
                name="label"
                maxLength={256}
                value={s.label}
                onInput={(e) => set({ label: (e.target as HTMLInputElement).value })}
              />
              <p class="help">{PARAMETERS.label.summary}</p>
            </div>
          </div>
        </fieldset>

        <details class="card">
          <summary>Parameters (the defaults suit most datasets)</summary>
          <div class="grid2">
            {PARAM_SPECS.map((p) => (
              <div key={p.name}>
                <label for={`p-${p.name}`}>
                  {p.label} <span class="muted small">(--{p.name.replaceAll("_", "-")})</span>
                </label>
                <input
                  id={`p-${p.name}`}
                  name={p.name}
                  type="number"
                  step="any"
                  placeholder={p.defaultValue === null ? "model default" : String(p.defaultValue)}
                  value={s.params[p.name] ?? ""}
                  aria-invalid={paramErrors[p.name] ? "true" : "false"}
                  onInput={(e) =>
                    set({ params: { ...s.params, [p.name]: (e.target as HTMLInputElement).value } })
                  }
                />
                <p class="help">
                  {p.help} Default {p.defaultValue === null ? "none" : p.defaultValue}; {boundsText(p)}.
                </p>
                {paramErrors[p.name] && <p class="error small">{paramErrors[p.name]}</p>}
              </div>
            ))}
            <div>
              <label for="prefix">prefix (--prefix)</label>
              <input
                id="prefix"
                name="prefix"
                value={s.prefix}
                onInput={(e) => set({ prefix: (e.target as HTMLInputElement).value })}
              />
              <p class="help">{HELP.prefix}</p>
            </div>
            <div>
              <label for="model_version">model version (--model-version)</label>
              <input
                id="model_version"
                name="model_version"
                value={s.modelVersion}
                onInput={(e) => set({ modelVersion: (e.target as HTMLInputElement).value })}
              />
              <p class="help">{HELP.modelVersion}</p>
            </div>
          </div>
        </details>

        {error && (
          <p class="error" role="alert" data-testid="submit-error">
            {error}
          </p>
        )}
        {upload && (
          <div class="progress-wrap" data-testid="upload-progress">
            <div
              class="progress"
              role="progressbar"
              aria-label="Upload"
              aria-valuemin={0}
              aria-valuemax={100}
              aria-valuenow={upload.total ? Math.floor((100 * upload.loaded) / upload.total) : 0}
            >
              <div
                class="progress-bar"
                style={{ width: `${upload.total ? (100 * upload.loaded) / upload.total : 0}%` }}
              />
            </div>
            <span class="progress-text" aria-live="polite">
              {upload.total === 0
                ? "Starting the upload…"
                : upload.loaded < upload.total
                  ? `Uploading ${Math.floor((100 * upload.loaded) / upload.total)}% (${mb(upload.loaded, upload.total)} of ${mb(upload.total, upload.total)} MB)`
                  : "Uploaded; the service is checking the files…"}
            </span>
          </div>
        )}
        <div class="row">
          <button type="submit" class="primary" disabled={busy || missing.length > 0 || invalid}>
            {busy ? "Uploading…" : "Submit prediction"}
          </button>
          {upload && (upload.total === 0 || upload.loaded < upload.total) && (
            <button type="button" onClick={() => cancelUpload.current?.abort()}>
              Cancel upload
            </button>
          )}
          {!busy && missing.length > 0 && (
            <span class="muted" data-testid="still-needed">
              Still needed: {missing.join(", ")}.
            </span>
          )}
        </div>
      </form>
    </section>
  );
}
