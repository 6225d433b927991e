/**
 * The split upload's DEGs: a list pasted or read from a file (`--degs`), or a DE table with its
 * gene column and thresholds (`--degs-table`, `--padj`, `--lfc`), checked against the service
 * before anything is sent.
 */
import { useEffect, useMemo, useState } from "preact/hooks";
import { client, CausewayError, type ResolvedGenes } from "../../client.ts";
import { useLimitWait } from "../../components/Pending.tsx";
import { degCheck, MAX_DEGS } from "./deg-check.ts";
import { DeTableFormatError, degsOf, notATextTable, readDeTable, type DeTable } from "./de-table.ts";
import { HELP } from "./cli-fields.ts";
import { excelDateSymbol, parseGeneList, pastedDeTable } from "./gene-list.ts";

export interface DegsState {
  mode: "list" | "table";
  text: string;
  table: DeTable | null;
  tableName: string;
  /** Why the chosen file could not be read as a table, or "". */
  tableError: string;
  gene: string;
  padj: string;
  lfc: string;
  padjMax: string;
  lfcMin: string;
}

export const emptyDegs: DegsState = {
  mode: "list",
  text: "",
  table: null,
  tableName: "",
  tableError: "",
  gene: "",
  padj: "",
  lfc: "",
  padjMax: "0.05",
  lfcMin: "1",
};

/** The DEG list the form would send. */
export function genesOf(s: DegsState): string[] {
  if (s.mode === "list") return parseGeneList(s.text);
  if (!s.table || !s.gene || !s.padj || !s.lfc) return [];
  return degsOf(s.table, { gene: s.gene, padj: s.padj, lfc: s.lfc }, Number(s.padjMax), Number(s.lfcMin));
}

/**
 * Why the DEGs cannot be sent as they stand, or null: a DE table pasted into the list box would
 * send its column names, numbers and non-significant genes as DEGs.
 */
export function degsProblem(s: DegsState): string | null {
  if (s.mode === "list" && pastedDeTable(s.text))
    return "the DEGs (the pasted text is a DE table: read it as one, or paste only the genes)";
  return null;
}

/** What choosing a file as a DE table sets: its first bytes say when it is no text at all. */
async function tableFromFile(f: File): Promise<Partial<DegsState>> {
  const notText = notATextTable(new Uint8Array(await f.slice(0, 4096).arrayBuffer()));
  if (notText) return { table: null, tableName: f.name, tableError: `${f.name}: ${notText}` };
  if (f.size === 0) return { table: null, tableName: f.name, tableError: `${f.name}: the file is empty.` };
  return tableFileState(f.name, await f.text());
}

/** What choosing a table file sets: the table and its detected columns, or why it cannot be read. */
function tableFileState(name: string, text: string): Partial<DegsState> {
  try {
    const table = readDeTable(text);
    const { gene, padj, lfc } = table.detected;
    return { table, tableName: name, tableError: "", gene: gene ?? "", padj: padj ?? "", lfc: lfc ?? "" };
  } catch (err) {
    if (!(err instanceof DeTableFormatError)) throw err;
    return { table: null, tableName: name, tableError: `${name}: ${err.message}` };
  }
}

function ColumnSelect(props: {
  id: string;
  label: string;
  value: string;
  columns: string[];
  onChange: (v: string) => void;
}) {
  return (
    <div>
      <label for={props.id}>{props.label}</label>
      <select
        id={props.id}
        name={props.id}
        value={props.value}
        onChange={(e) => props.onChange((e.target as HTMLSelectElement).value)}
      >
        <option value="">choose a column</option>
        {props.columns.map((c) => (
          <option key={c} value={c}>
            {c}
          </option>
        ))}
      </select>
    </div>
  );
}

export function DegsField({
  state: s,
  onChange,
  species,
}: {
  state: DegsState;
  onChange: (s: DegsState) => void;
  species: "human" | "mouse";
}) {
  const set = (patch: Partial<DegsState>) => onChange({ ...s, ...patch });
  const pasted = s.mode === "list" ? pastedDeTable(s.text) : null;
  const genes = useMemo(() => (pasted ? [] : genesOf(s)), [s, pasted !== null]);
  const [resolved, setResolved] = useState<ResolvedGenes | null>(null);
  useEffect(() => {
    setResolved(null);
    if (genes.length === 0 || genes.length > MAX_DEGS) return;
    let live = true;
    // Wait for the typing to settle: each check is a request against the edge limit.
    const timer = setTimeout(() => {
      client()
        .resolveGenes(genes, species)
        .then(
          (r) => live && setResolved(r),
          (err: unknown) => {
            if (!(err instanceof CausewayError)) throw err;
          },
        );
    }, 600);
    return () => {
      live = false;
      clearTimeout(timer);
    };
  }, [genes, species]);
  const check = degCheck(genes.length, resolved);
  // The check is a request: while it waits on the limit, say so rather than "checking…" alone.
  const wait = useLimitWait();
  const listOf = (gs: typeof check.notInModel) =>
    gs
      .map((g) => {
        const suggestion = g.suggestion ?? excelDateSymbol(g.input);
        return suggestion ? `${g.input} (did you mean ${suggestion}?)` : g.input;
      })
      .join(", ");
  const excelDates = check.notRecognised.filter((g) => !g.suggestion && excelDateSymbol(g.input));
  return (
    <>
      <div class="segmented" role="radiogroup" aria-label="How the DEGs are given">
        <label>
          <input
            type="radio"
            name="degs_mode"
            checked={s.mode === "list"}
            onChange={() => set({ mode: "list" })}
          />
          A list of DEGs (--degs)
        </label>
        <label>
          <input
            type="radio"
            name="degs_mode"
            checked={s.mode === "table"}
            onChange={() => set({ mode: "table" })}
          />
          A DE table (--degs-table)
        </label>
      </div>
      {s.mode === "list" ? (
        <>
          <label for="degs">Differentially expressed genes</label>
          <p class="help">{HELP.degs}. Paste them, or read a file.</p>
          <textarea
            id="degs"
            name="degs"
            rows={5}
            spellcheck={false}
            value={s.text}
            onInput={(e) => set({ text: (e.target as HTMLTextAreaElement).value })}
          />
          {pasted && (
            <div class="warn-line" role="alert" data-testid="pasted-table">
              <p>
                This looks like a DE table (columns {pasted.columns.slice(0, 6).join(", ")}
                {pasted.columns.length > 6 ? ", …" : ""}), not a list of genes: as a list, its column names,
                numbers and non-significant genes would be sent as DEGs. Read it as a DE table to choose the
                DEGs by adjusted p-value and fold change, or paste only the gene symbols.
              </p>
              <button
                type="button"
                onClick={() => set({ mode: "table", ...tableFileState("the pasted table", s.text) })}
              >
                Read it as a DE table
              </button>
            </div>
          )}
          <label class="file-inline">
            Read the list from a file
            <input
              type="file"
              name="degs_file"
              accept=".json,.txt,.tsv,.csv"
              onChange={(e) => {
                const f = (e.target as HTMLInputElement).files?.[0];
                if (f) void f.text().then((text) => set({ text }));
              }}
            />
          </label>
        </>
      ) : (
        <>
          <label class="file-inline">
            DE table
            <input
              type="file"
              name="degs_table"
              accept=".tsv,.csv,.txt"
              onChange={(e) => {
                const f = (e.target as HTMLInputElement).files?.[0];
                if (f) void tableFromFile(f).then((patch) => set(patch));
              }}
            />
          </label>
          <p class="help">
            {HELP.degsTable}. The gene column is detected (hgnc_symbol first) and can be changed.
          </p>
          {s.table && s.tableName && (
            <p class="small muted" data-testid="table-source">
              Read from {s.tableName}: {s.table.rows.length.toLocaleString("en")} rows.
            </p>
          )}
          {s.tableError && (
            <p class="deg-feedback tone-error" role="alert">
              {s.tableError}
            </p>
          )}
          {s.table && (
            <div class="grid3">
              <ColumnSelect
                id="degs_gene_column"
                label="Gene column"
                value={s.gene}
                columns={s.table.columns}
                onChange={(gene) => set({ gene })}
              />
              <ColumnSelect
                id="degs_padj_column"
                label="Adjusted p-value column"
                value={s.padj}
                columns={s.table.columns}
                onChange={(padj) => set({ padj })}
              />
              <ColumnSelect
                id="degs_lfc_column"
                label="log2 fold-change column"
                value={s.lfc}
                columns={s.table.columns}
                onChange={(lfc) => set({ lfc })}
              />
              <div>
                <label for="padj">padj (--padj)</label>
                <input
                  id="padj"
                  name="padj"
                  type="number"
                  step="any"
                  min="0"
                  max="1"
                  value={s.padjMax}
                  onInput={(e) => set({ padjMax: (e.target as HTMLInputElement).value })}
                />
                <p class="help">{HELP.padj}</p>
              </div>
              <div>
                <label for="lfc">lfc (--lfc)</label>
                <input
                  id="lfc"
                  name="lfc"
                  type="number"
                  step="any"
                  min="0"
                  value={s.lfcMin}
                  onInput={(e) => set({ lfcMin: (e.target as HTMLInputElement).value })}
                />
                <p class="help">{HELP.lfc}</p>
              </div>
            </div>
          )}
        </>
      )}
      {!pasted && (
        <p class={`deg-feedback tone-${check.tone}`} data-testid="deg-feedback" aria-live="polite">
          {check.text}
          {!resolved && wait !== null && genes.length > 0
            ? ` Waiting for the request limit (30 a minute per address): about ${wait} s.`
            : ""}
        </p>
      )}
      {excelDates.length > 0 && (
        <p class="deg-feedback tone-warn small" data-testid="excel-dates">
          {excelDates.map((g) => `${g.input} (did you mean ${excelDateSymbol(g.input)}?)`).join(", ")}: Excel
          turns these symbols into dates; HGNC has renamed the genes since. Use the current symbols.
        </p>
      )}
      {check.notInModel.length > 0 && (
        <details class="small">
          <summary>
            Recognised but not in the model ({check.notInModel.length.toLocaleString("en")}): they are sent,
            but nothing can explain them
          </summary>
          <p data-testid="not-in-model">{listOf(check.notInModel)}</p>
        </details>
      )}
      {check.notRecognised.length > 0 && (
        <details class="small">
          <summary>Not recognised ({check.notRecognised.length.toLocaleString("en")})</summary>
          <p data-testid="not-recognised">{listOf(check.notRecognised)}</p>
        </details>
      )}
    </>
  );
}
