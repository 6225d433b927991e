/** One row of the target table, with its folded proxies and the row's action ("Explain"). */
import type { TargetsPageResult } from "../../client.ts";
import { num, symbol } from "../../format.ts";
import { shownValue } from "./columns.ts";

export type Row = TargetsPageResult["rows"][number];

export interface RowAction {
  label: string;
  run: (row: Row) => void;
  busyId: string | null;
}

function Cell({ column, value }: { column: string; value: unknown }) {
  const v = shownValue(column, value);
  if (v === null || v === undefined) return <td class="na">—</td>;
  if (column === "proxy_of")
    return (
      <td class="sym" title={String(v)}>
        {symbol(String(v))}
      </td>
    );
  if (typeof v === "boolean") return <td class={v ? "yes" : "no"}>{v ? "yes" : "no"}</td>;
  if (typeof v === "number") return <td class="num">{num(v, column)}</td>;
  return <td>{String(v)}</td>;
}

export function TargetRow(props: {
  row: Row;
  columns: string[];
  pinned: boolean;
  highlight: string | null;
  showTier: boolean;
  inSetMark: boolean;
  open: boolean;
  onToggle: (id: string) => void;
  action: RowAction | undefined;
}) {
  const r = props.row;
  const id = String(r.cells.id ?? "");
  const sym = symbol(id);
  const proxies = r.proxies ?? [];
  const inSet = r.cells.in_prediction_set === true;
  const cls = [props.pinned ? "pinned" : "", props.highlight === sym ? "highlight" : ""].join(" ").trim();
  const action = props.action;
  // Model v4 ranks proteins only its evidence layers name: the network has no path from them.
  const source = r.cells.candidate_source;
  const outsideNetwork = typeof source === "string" && source !== "network";
  return (
    <>
      <tr data-testid="target-row" data-id={id} class={cls || undefined}>
        {props.columns.flatMap((c) =>
          c === "id"
            ? [
                <td class="sym" title={id} key="id">
                  {props.pinned && <span class="pin-tag">target</span>}
                  {sym}
                  {outsideNetwork && (
                    <span
                      class="source-tag"
                      data-testid="candidate-source"
                      title={`Outside the network: a candidate because its evidence layers name it (${source}); its evidence is theirs alone`}
                    >
                      {source.replaceAll("+", " + ")}
                    </span>
                  )}
                  {props.inSetMark && inSet && (
                    <span class="set-mark" title="In the 90 % prediction set" aria-label="in the 90 % set">
                      {" "}
                      ●
                    </span>
                  )}
                  {proxies.length > 0 && (
                    <button
                      type="button"
                      class="proxy-toggle"
                      aria-expanded={props.open}
                      onClick={() => props.onToggle(id)}
                      title="Single-edge proxies folded under this hub"
                    >
                      +{proxies.length} prox{proxies.length === 1 ? "y" : "ies"}
                    </button>
                  )}
                </td>,
                action && outsideNetwork ? (
                  <td
                    key="action"
                    class="na"
                    title={`${sym} is a candidate through its evidence layers (${source}), not the network: there is no causal path to explain`}
                  >
                    —
                  </td>
                ) : action ? (
                  <td key="action">
                    <button
                      type="button"
                      class="small-button"
                      data-testid="explain-target"
                      disabled={action.busyId !== null}
                      onClick={() => action.run(r)}
                      aria-label={`${action.label} ${sym}`}
                      title={`Run a causal analysis of ${sym}: its paths to the DEGs and its graph`}
                    >
                      {action.busyId === id ? "Starting…" : action.label}
                    </button>
                  </td>
                ) : null,
              ]
            : [<Cell key={c} column={c} value={r.cells[c]} />],
        )}
        {props.showTier && <td>{r.tier ? r.tier.replaceAll("_", " ") : "—"}</td>}
      </tr>
      {props.open && proxies.length > 0 ? (
        <tr class="proxies-row">
          <td colSpan={props.columns.length + 2}>
            Single-edge proxies of {sym} (they feed only {sym} and share its evidence):{" "}
            {proxies.map((p) => symbol(p)).join(", ")}
          </td>
        </tr>
      ) : null}
    </>
  );
}
