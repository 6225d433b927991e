/**
 * A new prediction: the split pair (control, perturbed, DEGs) or one merged file, dropped or
 * picked; the DEG list pasted or read from a file, with "N of M recognised" before anything is
 * sent; every parameter with its default, bounds and explanation; refusals as sentences.
 */
import { useEffect, useMemo, useState } from "preact/hooks";
import { client, CausewayError, type PredictionSubmission, type ResolvedGenes } from "../client.ts";
import { explain } from "../explain.ts";
import { DropZone } from "../components/DropZone.tsx";
import { PARAM_SPECS, boundsText, checkParam } from "../params.ts";
import { navigate } from "../router.ts";
import { PARAMETERS } from "@causeway/api/schemas/field-docs.ts";

/** Gene symbols from pasted text or a file: a JSON array, or words separated by commas, tabs or lines. */
export function parseGeneList(text: string): string[] {
  const t = text.trim();
  if (t.startsWith("[")) {
    try {
      const v: unknown = JSON.parse(t);
      if (Array.isArray(v))
        return v.filter((g): g is string => typeof g === "string" && g.trim() !== "").map((g) => g.trim());
    } catch {
      // not JSON: read as a plain list
    }
  }
  return t
    .split(/[\s,;]+/)
    .map((g) => g.replace(/^["']|["']$/g, ""))
    .filter((g) => g !== "");
}

/** A target as the API wants it: SYMBOL|PROTEIN (a bare symbol is taken as its protein). */
const targetId = (t: string): string => {
  const s = t.trim();
  return s === "" || s.includes("|") ? s : `${s.toUpperCase()}|PROTEIN`;
};

export function NewPrediction() {
  const [shape, setShape] = useState<"split" | "merged">("split");
  const [control, setControl] = useState<File | null>(null);
  const [perturbed, setPerturbed] = useState<File | null>(null);
  const [merged, setMerged] = useState<File | null>(null);
  const [degText, setDegText] = useState("");
  const [jobType, setJobType] = useState<"target_id" | "target_validation">("target_id");
  const [target, setTarget] = useState("");
  const [label, setLabel] = useState("");
  const [values, setValues] = useState<Record<string, string>>({});
  const [resolved, setResolved] = useState<ResolvedGenes | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);

  const genes = useMemo(() => parseGeneList(degText), [degText]);
  useEffect(() => {
    setResolved(null);
    if (genes.length === 0 || genes.length > 20_000) return;
    let live = true;
    // Wait for the typing to settle: each check is a request against the edge limit.
    const timer = setTimeout(() => {
      client()
        .resolveGenes(genes)
        .then(
          (r) => live && setResolved(r),
          (err: unknown) => {
            if (!(err instanceof CausewayError)) throw err;
            if (live) setResolved(null);
          },
        );
    }, 600);
    return () => {
      live = false;
      clearTimeout(timer);
    };
  }, [genes]);

  const paramErrors = Object.fromEntries(
    PARAM_SPECS.map((p) => [p.name, checkParam(p, values[p.name] ?? "")]),
  );
  const missing: string[] = [];
  if (shape === "split") {
    if (!control) missing.push("the control file");
    if (!perturbed) missing.push("the perturbed file");
    if (genes.length === 0) missing.push("the DEG list");
  } else if (!merged) missing.push("the merged file");
  if (jobType === "target_validation" && target.trim() === "") missing.push("the target");
  const invalid = Object.values(paramErrors).some((e) => e !== null) || genes.length > 20_000;

  const submit = async (e: Event) => {
    e.preventDefault();
    setError(null);
    const options: Record<string, string | number> = { job_type: jobType };
    if (jobType === "target_validation") options.target = targetId(target);
    if (label.trim() !== "") options.label = label.trim();
    for (const p of PARAM_SPECS) {
      const v = (values[p.name] ?? "").trim();
      if (v !== "") options[p.name] = Number(v);
    }
    const submission = (
      shape === "split"
        ? { ...options, dataset_control: control!, dataset_pert: perturbed!, degs: genes }
        : { ...options, dataset: merged! }
    ) as PredictionSubmission;
    setBusy(true);
    try {
      const { prediction_id } = await client().createPrediction(submission);
      navigate(`/app/predictions/${prediction_id}`);
    } catch (err) {
      setError(explain(err));
    } finally {
      setBusy(false);
    }
  };

  const unrecognised = resolved?.genes.filter((g) => !g.in_model) ?? [];
  return (
    <section>
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
                checked={shape === "split"}
                onChange={() => setShape("split")}
              />
              Split: control and perturbed .h5ad with their DEGs
            </label>
            <label>
              <input
                type="radio"
                name="shape"
                value="merged"
                checked={shape === "merged"}
                onChange={() => setShape("merged")}
              />
              Merged: one .h5ad with both conditions
            </label>
          </div>
          {shape === "split" ? (
            <>
              <div class="drops">
                <DropZone
                  name="dataset_control"
                  label="Control cells"
                  hint="Drop the control .h5ad here or choose it"
                  accept=".h5ad"
                  file={control}
                  onFile={setControl}
                />
                <DropZone
                  name="dataset_pert"
                  label="Perturbed cells"
                  hint="Drop the perturbed .h5ad here or choose it"
                  accept=".h5ad"
                  file={perturbed}
                  onFile={setPerturbed}
                />
              </div>
              <label for="degs">Differentially expressed genes</label>
              <p class="help">
                {PARAMETERS.degs.summary} Paste symbols (one per line, or separated by commas), a JSON array,
                or read a file.
              </p>
              <textarea
                id="degs"
                name="degs"
                rows={6}
                spellcheck={false}
                value={degText}
                onInput={(e) => setDegText((e.target as HTMLTextAreaElement).value)}
              />
              <div class="row">
                <label class="file-inline">
                  Read the list from a file
                  <input
                    type="file"
                    name="degs_file"
                    accept=".json,.txt,.tsv,.csv"
                    onChange={(e) => {
                      const f = (e.target as HTMLInputElement).files?.[0];
                      if (f) void f.text().then(setDegText);
                    }}
                  />
                </label>
                <p class="deg-feedback" data-testid="deg-feedback" aria-live="polite">
                  {genes.length === 0
                    ? "No genes yet."
                    : genes.length > 20_000
                      ? `${genes.length.toLocaleString("en")} genes: at most 20,000 are accepted.`
                      : resolved
                        ? `${resolved.n_recognised.toLocaleString("en")} of ${resolved.n_input.toLocaleString("en")} recognised`
                        : `${genes.length.toLocaleString("en")} genes · checking…`}
                </p>
              </div>
              {unrecognised.length > 0 && (
                <p class="muted small">
                  Not in the model:{" "}
                  {unrecognised
                    .slice(0, 12)
                    .map((g) => (g.suggestion ? `${g.input} (did you mean ${g.suggestion}?)` : g.input))
                    .join(", ")}
                  {unrecognised.length > 12 ? ` and ${unrecognised.length - 12} more` : ""}.
                </p>
              )}
            </>
          ) : (
            <div class="drops">
              <DropZone
                name="dataset"
                label="Merged dataset"
                hint="Drop the .h5ad here or choose it"
                accept=".h5ad"
                file={merged}
                onFile={setMerged}
              />
            </div>
          )}
        </fieldset>

        <fieldset class="card">
          <legend>Question</legend>
          <div class="grid2">
            <div>
              <label for="job_type">Job type</label>
              <select
                id="job_type"
                name="job_type"
                value={jobType}
                onChange={(e) => setJobType((e.target as HTMLSelectElement).value as typeof jobType)}
              >
                <option value="target_id">Target identification: rank every protein</option>
                <option value="target_validation">Target validation: explain one protein</option>
              </select>
              <p class="help">{PARAMETERS.job_type.summary}</p>
            </div>
            <div>
              <label for="target">
                Target {jobType === "target_validation" ? "" : "(target validation only)"}
              </label>
              <input
                id="target"
                name="target"
                placeholder="STAT1"
                disabled={jobType !== "target_validation"}
                value={target}
                onInput={(e) => setTarget((e.target as HTMLInputElement).value)}
              />
              <p class="help">{PARAMETERS.target.summary}</p>
            </div>
            <div>
              <label for="label">Label</label>
              <input
                id="label"
                name="label"
                maxLength={256}
                value={label}
                onInput={(e) => setLabel((e.target as HTMLInputElement).value)}
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
                <label for={`p-${p.name}`}>{p.label}</label>
                <input
                  id={`p-${p.name}`}
                  name={p.name}
                  type="number"
                  step="any"
                  placeholder={p.defaultValue === null ? "model default" : String(p.defaultValue)}
                  value={values[p.name] ?? ""}
                  aria-invalid={paramErrors[p.name] ? "true" : "false"}
                  onInput={(e) => setValues({ ...values, [p.name]: (e.target as HTMLInputElement).value })}
                />
                <p class="help">
                  {p.help} Default {p.defaultValue === null ? "none" : p.defaultValue}; {boundsText(p)}.
                </p>
                {paramErrors[p.name] && <p class="error small">{paramErrors[p.name]}</p>}
              </div>
            ))}
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
