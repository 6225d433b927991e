/**
 * Search, tier and direction filters, proxy folding and the column chooser of the target table.
 * The filters offer the values the table has (with their counts) and stay on screen whatever a
 * filter leaves, so that a filter giving no rows can always be undone.
 */
import type { TargetsPageResult } from "../../client.ts";
import { columnTitle } from "./columns.ts";

export type Facets = NonNullable<TargetsPageResult["facets"]>;

const TIERS = ["measured", "not_measured", "not_expressed"] as const;
const DIRECTIONS = ["activated", "inhibited", "undetermined"] as const;

function FacetSelect({
  name,
  label,
  values,
  counts,
  value,
  onChange,
}: {
  name: string;
  label: string;
  values: readonly string[];
  counts: Partial<Record<string, number>> | null;
  value: string;
  onChange: (v: string) => void;
}) {
  // Before the counts are known every value is offered; after, only those some row has.
  const offered = counts ? values.filter((v) => (counts[v] ?? 0) > 0 || v === value) : values;
  return (
    <label>
      {label}{" "}
      <select name={name} value={value} onChange={(e) => onChange((e.target as HTMLSelectElement).value)}>
        <option value="">all</option>
        {offered.map((v) => (
          <option key={v} value={v}>
            {v.replaceAll("_", " ")}
            {counts ? ` (${(counts[v] ?? 0).toLocaleString("en")})` : ""}
          </option>
        ))}
      </select>
    </label>
  );
}

export function TableControls(props: {
  query: string;
  onQuery: (q: string) => void;
  /** Filters exist only for accounts that see the whole table. */
  filters: { facets: Facets | null; tier: string; direction: string } | null;
  onTier: (v: string) => void;
  onDirection: (v: string) => void;
  fold: { on: boolean; toggle: () => void } | null;
  columns: { all: string[]; shown: string[]; toggle: (c: string) => void } | null;
}) {
  const f = props.filters;
  return (
    <div class="table-controls">
      <label class="search">
        <span class="sr-only">Search by gene symbol</span>
        <input
          type="search"
          name="q"
          placeholder="Search by symbol, e.g. IRF1"
          value={props.query}
          onInput={(e) => props.onQuery((e.target as HTMLInputElement).value)}
          data-testid="target-search"
        />
      </label>
      {f && (
        <FacetSelect
          name="tier"
          label="Tier"
          values={TIERS}
          counts={f.facets?.tier ?? null}
          value={f.tier}
          onChange={props.onTier}
        />
      )}
      {f && (
        <FacetSelect
          name="direction"
          label="Direction"
          values={DIRECTIONS}
          counts={f.facets?.direction ?? null}
          value={f.direction}
          onChange={props.onDirection}
        />
      )}
      {props.fold && (
        <label class="check">
          <input type="checkbox" name="fold_proxies" checked={props.fold.on} onChange={props.fold.toggle} />{" "}
          fold proxies under their hub
        </label>
      )}
      {props.columns && (
        <details class="columns-menu">
          <summary>Columns</summary>
          <div class="columns-list">
            {props.columns.all.map((c) => (
              <label key={c} class="check">
                <input
                  type="checkbox"
                  checked={props.columns!.shown.includes(c)}
                  onChange={() => props.columns!.toggle(c)}
                />{" "}
                {columnTitle(c)}
              </label>
            ))}
          </div>
        </details>
      )}
    </div>
  );
}
