/**
 * The merged file's columns (`--condition-column` … `--cell-type`): read from the file's obs in
 * the page, with the arms, samples and cell types shown before upload, and the cell type chosen
 * from the file's own levels. Each field may be left to the service's detection or typed.
 */
import { useEffect, useState } from "preact/hooks";
import { COLUMN_FIELDS, OBS_CAP_PER_ARM, prepareCommand, type ColumnField } from "./cli-fields.ts";
import { armsOf, columnNamed, detectColumn, detectControl, type ObsTable } from "./obs-table.ts";
import { cellTypeChoice } from "./form-state.ts";
import { readObs } from "./read-obs.ts";

export type ColumnValues = Partial<Record<ColumnField, string>>;

type Read =
  | { state: "none" }
  | { state: "reading" }
  | { state: "ok"; table: ObsTable }
  | { state: "error"; error: string };

export function DatasetColumns({
  file,
  values,
  onChange,
  onCellTypes,
}: {
  file: File | null;
  values: ColumnValues;
  onChange: (v: ColumnValues) => void;
  /** The levels of the cell-type column read from the file (none while unread). */
  onCellTypes?: (levels: string[]) => void;
}) {
  const [read, setRead] = useState<Read>({ state: "none" });
  useEffect(() => {
    if (!file) return setRead({ state: "none" });
    let live = true;
    setRead({ state: "reading" });
    readObs(file).then(
      (table) => live && setRead({ state: "ok", table }),
      (err: unknown) =>
        live && setRead({ state: "error", error: err instanceof Error ? err.message : String(err) }),
    );
    return () => {
      live = false;
    };
  }, [file]);

  const table = read.state === "ok" ? read.table : null;
  const v = (k: ColumnField) => values[k]?.trim() || null;
  const roles = table && {
    condition: v("condition_column") ?? detectColumn(table, "condition"),
    sample: v("sample_column") ?? detectColumn(table, "sample"),
    cellType: v("cell_type_column") ?? detectColumn(table, "cellType"),
  };
  const conditionLevels = (table && roles && columnNamed(table, roles.condition)?.levels) ?? [];
  const cellTypeLevels = (table && roles && columnNamed(table, roles.cellType)?.levels) ?? [];
  const cellTypeKey = JSON.stringify(cellTypeLevels);
  useEffect(() => onCellTypes?.(JSON.parse(cellTypeKey) as string[]), [cellTypeKey]);
  const choice = cellTypeChoice(cellTypeLevels, values.cell_type);
  const suggestions: Record<ColumnField, string[]> = {
    condition_column: table?.columns.map((c) => c.name) ?? [],
    sample_column: table?.columns.map((c) => c.name) ?? [],
    donor_column: table?.columns.map((c) => c.name) ?? [],
    cell_type_column: table?.columns.map((c) => c.name) ?? [],
    control_level: conditionLevels,
    cell_type: cellTypeLevels,
  };
  const detected: Partial<Record<ColumnField, string | null>> = table
    ? {
        condition_column: roles!.condition,
        sample_column: roles!.sample,
        donor_column: detectColumn(table, "donor"),
        cell_type_column: roles!.cellType,
        control_level: detectControl(conditionLevels),
      }
    : {};
  const arms = table && roles ? armsOf(table, { ...roles, cellTypeLevel: v("cell_type") }) : [];
  // The service refuses a condition above the cap (too_many_observations): said before upload.
  const over = arms.filter((a) => a.n > OBS_CAP_PER_ARM);
  return (
    <div class="dataset-columns" data-testid="dataset-columns">
      {read.state === "reading" && <p class="muted">Reading the file's observations…</p>}
      {read.state === "error" && (
        <p class="muted small">The page could not read the file's columns ({read.error}); type them below.</p>
      )}
      {table && (
        <p class="small" data-testid="obs-summary">
          {table.nObs.toLocaleString("en")} observations; obs columns:{" "}
          {table.columns.map((c) => `${c.name} (${c.levels.length})`).join(", ")}.
        </p>
      )}
      <div class="grid3">
        {COLUMN_FIELDS.map((f) => (
          <div key={f.name}>
            <label for={f.name}>
              {f.name.replaceAll("_", " ")} <span class="muted small">({f.flag})</span>
            </label>
            {f.name === "cell_type" && cellTypeLevels.length > 0 ? (
              <>
                <select
                  id={f.name}
                  name={f.name}
                  value={values.cell_type ?? ""}
                  aria-invalid={choice === "ok" ? "false" : "true"}
                  aria-describedby="cell_type-choice"
                  onChange={(e) => onChange({ ...values, cell_type: (e.target as HTMLSelectElement).value })}
                >
                  <option value="">
                    {cellTypeLevels.length > 1 ? "choose one cell type" : "all cell types"}
                  </option>
                  {choice === "unknown" && (
                    <option value={values.cell_type}>{values.cell_type} (not in this file)</option>
                  )}
                  {cellTypeLevels.map((l) => (
                    <option key={l} value={l}>
                      {l}
                    </option>
                  ))}
                </select>
                {choice !== "ok" && (
                  <p class="error small" id="cell_type-choice" data-testid="cell-type-choice">
                    {choice === "choose"
                      ? `This file holds ${cellTypeLevels.length} cell types in "${roles!.cellType}"; one prediction analyses one: choose it here (the service refuses the whole file).`
                      : `"${values.cell_type}" is not a cell type of this file; choose one of its ${cellTypeLevels.length}.`}
                  </p>
                )}
              </>
            ) : (
              <input
                id={f.name}
                name={f.name}
                list={`${f.name}-levels`}
                placeholder={detected[f.name] ? `detected: ${detected[f.name]}` : ""}
                value={values[f.name] ?? ""}
                onInput={(e) => onChange({ ...values, [f.name]: (e.target as HTMLInputElement).value })}
              />
            )}
            <datalist id={`${f.name}-levels`}>
              {suggestions[f.name].map((s) => (
                <option key={s} value={s} />
              ))}
            </datalist>
            <p class="help">{f.help}</p>
          </div>
        ))}
      </div>
      {arms.length > 0 && (
        <div class="table-scroll">
          <table class="data compact" data-testid="arms-table">
            <caption class="small">
              What the service will see{v("cell_type") ? ` for ${v("cell_type")}` : ""}
            </caption>
            <thead>
              <tr>
                <th scope="col">arm ({roles!.condition})</th>
                <th scope="col">observations</th>
                <th scope="col">samples</th>
                <th scope="col">cell types (observations)</th>
              </tr>
            </thead>
            <tbody>
              {arms.map((a) => (
                <tr key={a.arm}>
                  <td>
                    {a.arm}
                    {a.arm === (v("control_level") ?? detected.control_level) ? " (control)" : ""}
                  </td>
                  <td class="num">{a.n.toLocaleString("en")}</td>
                  <td class="num">{a.samples ?? "—"}</td>
                  <td class="path">{a.cellTypes.map((c) => `${c.level} (${c.n})`).join(", ") || "—"}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
      {file && over.length > 0 && (
        <div class="warn-line" data-testid="obs-cap">
          <p>
            The service accepts at most {OBS_CAP_PER_ARM.toLocaleString("en")} observations per condition
            {v("cell_type") ? ` of ${v("cell_type")}` : ""}, and{" "}
            {over.map((a) => `${a.arm} has ${a.n.toLocaleString("en")}`).join(", ")}: this upload would fail.{" "}
            {cellTypeLevels.length > 0 && !v("cell_type") ? "Choose one cell type above, or write" : "Write"}{" "}
            a subsampled copy that keeps every sample with the command line, and upload its dataset.h5ad:
          </p>
          <pre class="command">
            <code>{prepareCommand(file.name, values)}</code>
          </pre>
        </div>
      )}
    </div>
  );
}
