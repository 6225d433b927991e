/**
 * A new prediction, with everything `causeway submit` offers under the same names: the split
 * pair with its DEGs (a list or a DE table) or one merged file with its columns and cell type
 * (read from the file before upload), species, perturbation type when the model takes it, the
 * question, and every parameter with its default, bounds and explanation. Opened from a failed
 * prediction ("fix and resubmit"), it comes filled in with what was sent and what the failure
 * asked for.
 */
import { useState } from "preact/hooks";
import { PARAMETERS } from "@causeway/api/schemas/field-docs.ts";
import { PredictionCreateForm } from "@causeway/api/schemas/predictions.ts";
import { client } from "../../client.ts";
import { explain } from "../../explain.ts";
import { DropZone } from "../../components/DropZone.tsx";
import { PARAM_SPECS, boundsText, checkParam } from "../../params.ts";
import { navigate } from "../../router.ts";
import { HELP, PERTURBATION_TYPES } from "./cli-fields.ts";
import { DatasetColumns } from "./DatasetColumns.tsx";
import { DegsField, genesOf } from "./DegsField.tsx";
import { MAX_DEGS } from "./deg-check.ts";
import { emptyForm, submissionOf, type FormState } from "./form-state.ts";
import { lastSubmission } from "./last-submission.ts";

/** The contract adds perturbation_type with the model that reads it; the field shows from then on. */
const TAKES_PERTURBATION_TYPE = "perturbation_type" in PredictionCreateForm.shape;

export function NewPrediction({ initial }: { initial?: FormState | undefined }) {
  const [s, setS] = useState<FormState>(initial ?? emptyForm);
  const set = (patch: Partial<FormState>) => setS((old) => ({ ...old, ...patch }));
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);

  const genes = genesOf(s.degs);
  const paramErrors = Object.fromEntries(
    PARAM_SPECS.map((p) => [p.name, checkParam(p, s.params[p.name] ?? "")]),
  );
  const missing: string[] = [];
  if (s.shape === "split") {
    if (!s.control) missing.push("the control file");
    if (!s.perturbed) missing.push("the perturbed file");
    if (genes.length === 0) missing.push("the DEGs");
  } else if (!s.merged) missing.push("the merged file");
  if (s.jobType === "target_validation" && s.target.trim() === "") missing.push("the target");
  const invalid = Object.values(paramErrors).some((e) => e !== null) || genes.length > MAX_DEGS;

  const submit = async (e: Event) => {
    e.preventDefault();
    setError(null);
    setBusy(true);
    try {
      const { prediction_id } = await client().createPrediction(submissionOf(s, TAKES_PERTURBATION_TYPE));
      lastSubmission.remember(prediction_id, s);
      navigate(`/app/predictions/${prediction_id}`);
    } catch (err) {
      setError(explain(err));
    } finally {
      setBusy(false);
    }
  };

  return (
    <section class="new-prediction">
      <h1>New prediction</h1>
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
                  onFile={(control) => set({ control })}
                />
                <DropZone
                  name="dataset_pert"
                  label="Perturbed cells (--perturbed)"
                  hint="Drop the perturbed .h5ad here or choose it"
                  accept=".h5ad"
                  file={s.perturbed}
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
                  onFile={(merged) => set({ merged })}
                />
              </div>
              <DatasetColumns file={s.merged} values={s.columns} onChange={(columns) => set({ columns })} />
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
        <div class="row">
          <button type="submit" class="primary" disabled={busy || missing.length > 0 || invalid}>
            {busy ? "Uploading…" : "Submit prediction"}
          </button>
          {missing.length > 0 && <span class="muted">Still needed: {missing.join(", ")}.</span>}
        </div>
      </form>
    </section>
  );
}
