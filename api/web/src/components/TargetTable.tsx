/**
 * The ranked target table, paged by the server (GET /v1/predictions/{id}/targets): sort by any
 * column, search by symbol, filter by tier and direction, single-edge proxies folded under their
 * hub, the validated target's own row pinned on top. Every column header explains itself with
 * the "how to read" text and links to it.
 */
import { useEffect, useState } from "preact/hooks";
import { TARGET_COLUMNS } from "@causeway/api/schemas/field-docs.ts";
import { api, explain, type TargetsPageT } from "../api.ts";
import { num, symbol } from "../format.ts";

type Row = TargetsPageT["rows"][number];
const PAGE = 50;
const DEFAULT_COLUMNS = [
  "id",
  "score",
  "rank",
  "rank_percentage",
  "pvalue",
  "qvalue",
  "z_score",
  "n_degs_significant",
  "percentage_degs_significant",
  "is_deg",
  "protein_expressed",
  "activation_z",
  "activation_state",
];

const docOf = (c: string) => (TARGET_COLUMNS as Record<string, { summary: string; detail?: string }>)[c];

function Cell({ column, value }: { column: string; value: unknown }) {
  if (value === null || value === undefined) return <td class="na">—</td>;
  if (column === "id" || column === "proxy_of")
    return (
      <td class="sym" title={String(value)}>
        {symbol(String(value))}
      </td>
    );
  if (typeof value === "boolean") return <td class={value ? "yes" : "no"}>{value ? "yes" : "no"}</td>;
  if (typeof value === "number") return <td class="num">{num(value, column)}</td>;
  return <td>{String(value)}</td>;
}

export function TargetTable(props: {
  predictionId: string;
  search: string;
  onSearch: (q: string) => void;
  highlight: string | null;
  action?: { label: string; run: (row: Row) => void; busyId: string | null };
}) {
  const [sort, setSort] = useState("rank");
  const [order, setOrder] = useState<"asc" | "desc">("asc");
  const [offset, setOffset] = useState(0);
  const [tier, setTier] = useState("");
  const [direction, setDirection] = useState("");
  const [fold, setFold] = useState(true);
  const [query, setQuery] = useState(props.search);
  const [page, setPage] = useState<TargetsPageT | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [shown, setShown] = useState<string[] | null>(null);
  const [open, setOpen] = useState<Set<string>>(new Set());

  useEffect(() => setQuery(props.search), [props.search]);
  // Typing settles before a request is sent (each is one request against the edge limit).
  const [q, setQ] = useState(props.search);
  useEffect(() => {
    const t = setTimeout(() => {
      setQ(query.trim());
      setOffset(0);
    }, 350);
    return () => clearTimeout(t);
  }, [query]);

  const full = page ? page.columns.includes("pvalue") : true;
  const canFold = page ? page.columns.includes("proxy_of") : false;
  useEffect(() => {
    const stop = new AbortController();
    const params: Record<string, string | number | boolean | undefined> = {
      offset,
      limit: PAGE,
      sort,
      order,
      q: q || undefined,
    };
    if (full) {
      params.tier = tier || undefined;
      params.direction = direction || undefined;
      params.fold_proxies = canFold && fold ? true : undefined;
    }
    api.targets(props.predictionId, params, stop.signal).then(
      (p) => {
        setPage(p);
        setError(null);
      },
      (err: unknown) => {
        if (!stop.signal.aborted) setError(explain(err));
      },
    );
    return () => stop.abort();
  }, [props.predictionId, offset, sort, order, q, tier, direction, fold, full, canFold]);

  const columns = page ? (shown ?? DEFAULT_COLUMNS.filter((c) => page.columns.includes(c))) : [];
  const hasTiers = page?.rows.some((r) => r.tier) ?? false;
  const hasDirection = page?.rows.some((r) => r.direction) ?? false;
  const sortBy = (c: string) => {
    if (c === sort) setOrder(order === "asc" ? "desc" : "asc");
    else {
      setSort(c);
      // Scores read best-first; ranks and p-values smallest-first.
      setOrder(/^(rank|pvalue|qvalue|id)/.test(c) ? "asc" : "desc");
    }
    setOffset(0);
  };
  const toggle = (id: string) => {
    const next = new Set(open);
    if (next.has(id)) next.delete(id);
    else next.add(id);
    setOpen(next);
  };

  const renderRow = (r: Row, pinned = false) => {
    const id = String(r.cells.id ?? "");
    const sym = symbol(id);
    const proxies = r.proxies ?? [];
    return [
      <tr
        key={(pinned ? "pin:" : "") + id}
        data-testid="target-row"
        data-id={id}
        class={`${pinned ? "pinned" : ""}${props.highlight && sym === props.highlight ? " highlight" : ""}`}
      >
        {columns.flatMap((c) =>
          c === "id"
            ? [
                <td class="sym" title={id}>
                  {pinned && <span class="pin-tag">target</span>}
                  {sym}
                  {proxies.length > 0 && (
                    <button
                      type="button"
                      class="proxy-toggle"
                      aria-expanded={open.has(id)}
                      onClick={() => toggle(id)}
                      title="Single-edge proxies folded under this hub"
                    >
                      +{proxies.length} prox{proxies.length === 1 ? "y" : "ies"}
                    </button>
                  )}
                </td>,
                props.action ? (
                  <td>
                    <button
                      type="button"
                      class="small-button"
                      data-testid="explain-target"
                      disabled={props.action.busyId !== null}
                      onClick={() => props.action!.run(r)}
                      title={`Run a causal analysis of ${sym}: its paths to the DEGs and its graph`}
                    >
                      {props.action.busyId === id ? "Starting…" : props.action.label}
                    </button>
                  </td>
                ) : null,
              ]
            : [<Cell column={c} value={r.cells[c]} />],
        )}
        {hasTiers && <td>{r.tier ? r.tier.replaceAll("_", " ") : "—"}</td>}
      </tr>,
      open.has(id) && proxies.length > 0 ? (
        <tr key={`${id}:proxies`} class="proxies-row">
          <td colSpan={columns.length + 2}>
            Single-edge proxies of {sym} (they feed only {sym} and share its evidence):{" "}
            {proxies.map((p) => symbol(p)).join(", ")}
          </td>
        </tr>
      ) : null,
    ];
  };

  return (
    <div class="target-table">
      <div class="table-controls">
        <label class="search">
          <span class="sr-only">Search by gene symbol</span>
          <input
            type="search"
            name="q"
            placeholder="Search by symbol, e.g. IRF1"
            value={query}
            onInput={(e) => setQuery((e.target as HTMLInputElement).value)}
            data-testid="target-search"
          />
        </label>
        {full && hasTiers && (
          <label>
            Tier{" "}
            <select
              name="tier"
              value={tier}
              onChange={(e) => {
                setTier((e.target as HTMLSelectElement).value);
                setOffset(0);
              }}
            >
              <option value="">all</option>
              <option value="measured">measured</option>
              <option value="not_measured">not measured</option>
              <option value="not_expressed">not expressed</option>
            </select>
          </label>
        )}
        {full && hasDirection && (
          <label>
            Direction{" "}
            <select
              name="direction"
              value={direction}
              onChange={(e) => {
                setDirection((e.target as HTMLSelectElement).value);
                setOffset(0);
              }}
            >
              <option value="">all</option>
              <option value="activated">activated</option>
              <option value="inhibited">inhibited</option>
              <option value="undetermined">undetermined</option>
            </select>
          </label>
        )}
        {canFold && (
          <label class="check">
            <input
              type="checkbox"
              checked={fold}
              onChange={() => {
                setFold(!fold);
                setOffset(0);
              }}
            />{" "}
            fold proxies under their hub
          </label>
        )}
        {page && (
          <details class="columns-menu">
            <summary>Columns</summary>
            <div class="columns-list">
              {page.columns.map((c) => (
                <label key={c} class="check">
                  <input
                    type="checkbox"
                    checked={columns.includes(c)}
                    onChange={() =>
                      setShown(
                        columns.includes(c)
                          ? columns.filter((x) => x !== c)
                          : page.columns.filter((x) => x === c || columns.includes(x)),
                      )
                    }
                  />{" "}
                  {c}
                </label>
              ))}
            </div>
          </details>
        )}
      </div>
      {error && (
        <p class="error" role="alert">
          {error}
        </p>
      )}
      <div class="table-scroll" tabIndex={0} role="region" aria-label="Ranked targets">
        <table class="data" data-testid="target-table" aria-busy={page === null}>
          <thead>
            <tr>
              {columns.flatMap((c) => {
                const doc = docOf(c);
                const th = (
                  <th
                    key={c}
                    scope="col"
                    aria-sort={sort === c ? (order === "asc" ? "ascending" : "descending") : "none"}
                  >
                    <button
                      type="button"
                      class="th-sort"
                      onClick={() => sortBy(c)}
                      title={doc ? `${doc.summary}${doc.detail ? " " + doc.detail : ""}` : c}
                      data-column={c}
                    >
                      {c === "id" ? "candidate" : c.replaceAll("_", " ")}
                      <span class="sort-mark" aria-hidden="true">
                        {sort === c ? (order === "asc" ? "▲" : "▼") : ""}
                      </span>
                    </button>
                    {doc && (
                      <a
                        class="help-link"
                        href={`/app/how-to-read#col-${c}`}
                        aria-label={`What ${c} means`}
                        title={doc.summary}
                      >
                        ?
                      </a>
                    )}
                  </th>
                );
                return c === "id" && props.action ? [th, <th scope="col">Explain</th>] : [th];
              })}
              {hasTiers && (
                <th scope="col">
                  tier{" "}
                  <a
                    class="help-link"
                    href="/app/how-to-read#col-tier"
                    aria-label="What tier means"
                    title={TARGET_COLUMNS.tier.summary}
                  >
                    ?
                  </a>
                </th>
              )}
            </tr>
          </thead>
          {page?.pinned && <tbody class="pinned-body">{renderRow(page.pinned, true)}</tbody>}
          <tbody>{page?.rows.flatMap((r) => renderRow(r))}</tbody>
        </table>
        {page && page.rows.length === 0 && (
          <p class="muted empty-table">No candidate matches {q ? `“${q}”` : "these filters"}.</p>
        )}
      </div>
      {page && (
        <div class="pager">
          <span class="muted">
            {page.matched_rows === 0
              ? "0 rows"
              : `Rows ${(page.offset + 1).toLocaleString("en")}–${Math.min(page.offset + page.rows.length, page.matched_rows).toLocaleString("en")} of ${page.matched_rows.toLocaleString("en")}`}
            {page.matched_rows !== page.total_rows
              ? ` (${page.total_rows.toLocaleString("en")} candidates in all)`
              : " candidates"}
          </span>
          <span class="spacer" />
          <button type="button" disabled={offset === 0} onClick={() => setOffset(Math.max(0, offset - PAGE))}>
            Previous
          </button>
          <button
            type="button"
            disabled={page.offset + PAGE >= page.matched_rows}
            onClick={() => setOffset(offset + PAGE)}
          >
            Next
          </button>
        </div>
      )}
    </div>
  );
}
