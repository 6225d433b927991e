/**
 * The ranked target table, paged by the service (GET /v1/predictions/{id}/targets): sort by any
 * column, search by symbol, filter by tier and direction, single-edge proxies folded under their
 * hub, the validated target's own row pinned on top (and not listed a second time). Every column
 * header explains itself with the "how to read" text and links to it. A model that gives each
 * candidate a probability and a 90 % prediction set (`probability`, `in_prediction_set`) gets
 * both shown, whichever version writes them, with the set's size said in words. The table's place
 * (sort, page, search, filters) is kept in the page's query string (table-state.ts).
 */
import { useEffect, useMemo, useRef, useState } from "preact/hooks";
import { TARGET_COLUMNS } from "@causeway/api/schemas/field-docs.ts";
import { client, type TargetsPageQuery, type TargetsPageResult } from "../../client.ts";
import { explain } from "../../explain.ts";
import { Pending } from "../Pending.tsx";
import { ascendingFirst, columnTitle, DEFAULT_COLUMNS, docOf } from "./columns.ts";
import { TableControls, type Facets } from "./TableControls.tsx";
import { TargetRow, type RowAction } from "./TargetRow.tsx";
import { setSizeOf, setSizeSentence } from "./set-note.ts";
import { offsetOfPage, PAGE, pageCount, readTableState, writeTableState } from "./table-state.ts";
import "./target-table.css";

export function TargetTable(props: {
  predictionId: string;
  search: string;
  onSearch: (q: string) => void;
  highlight: string | null;
  action?: RowAction;
  /** The model was fitted on few experiments like this one (few_development_experiments). */
  roughCalibration?: boolean;
}) {
  // Where the table was, as the address says (Back, a reload, a shared link).
  const init = useMemo(() => readTableState(location.search), []);
  const [sort, setSort] = useState(init.sort);
  const [order, setOrder] = useState<"asc" | "desc">(init.order);
  const [offset, setOffset] = useState(init.offset);
  const [tier, setTier] = useState(init.tier);
  const [direction, setDirection] = useState(init.direction);
  const [fold, setFold] = useState(init.fold);
  const [query, setQuery] = useState(props.search || init.q);
  const [page, setPage] = useState<TargetsPageResult | null>(null);
  const [facets, setFacets] = useState<Facets | null>(null);
  const [setSize, setSetSize] = useState<number | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const [shown, setShown] = useState<string[] | null>(null);
  const [open, setOpen] = useState<Set<string>>(new Set());
  const [goTo, setGoTo] = useState("");
  const asked = useRef(0);

  // A search from outside (a gene picked on the volcano); the first render's is already in.
  const outside = useRef(props.search);
  useEffect(() => {
    if (props.search === outside.current) return;
    outside.current = props.search;
    setQuery(props.search);
  }, [props.search]);
  // Typing settles before a request is sent (each is one request against the edge limit).
  const [q, setQ] = useState(query.trim());
  const qNow = useRef(q);
  useEffect(() => {
    const t = setTimeout(() => {
      const next = query.trim();
      if (next === qNow.current) return;
      qNow.current = next;
      setQ(next);
      setOffset(0);
    }, 350);
    return () => clearTimeout(t);
  }, [query]);

  // The address follows the table (replaced, not pushed: Back leaves the page, as before).
  useEffect(() => {
    if (!location.pathname.includes(props.predictionId)) return;
    const search = writeTableState(location.search, { sort, order, offset, q, tier, direction, fold });
    if (search !== location.search)
      history.replaceState(history.state, "", `${location.pathname}${search}${location.hash}`);
  }, [props.predictionId, sort, order, offset, q, tier, direction, fold]);

  const full = page ? page.columns.includes("pvalue") : true;
  const canFold = page ? page.columns.includes("proxy_of") : false;
  useEffect(() => {
    const query: TargetsPageQuery = { offset, limit: PAGE, sort, order };
    if (q) query.q = q;
    if (full) {
      if (tier) query.tier = tier;
      if (direction) query.direction = direction;
      if (canFold && fold) query.fold_proxies = true;
    }
    const n = ++asked.current;
    setBusy(true);
    client()
      .getTargets(props.predictionId, query)
      .then(
        (p) => {
          if (n !== asked.current) return;
          // A link past the end of the table (it has fewer rows now): its last page instead.
          if (p.rows.length === 0 && p.offset > 0 && p.matched_rows > 0) {
            setOffset(offsetOfPage(pageCount(p.matched_rows), p.matched_rows));
            return;
          }
          setPage(p);
          setBusy(false);
          if (p.facets) setFacets(p.facets);
          const size = setSizeOf(p.pinned?.cells ?? p.rows[0]?.cells);
          if (size !== null) setSetSize(size);
          setError(null);
        },
        (err: unknown) => {
          if (n !== asked.current) return;
          setBusy(false);
          setError(explain(err));
        },
      );
  }, [props.predictionId, offset, sort, order, q, tier, direction, fold, full, canFold]);

  // The set's size is the same on every row: a page without rows (a search that matches
  // nothing) asks for one row to learn it.
  const needSize = page !== null && setSize === null && page.columns.includes("prediction_set_size");
  useEffect(() => {
    if (!needSize || (page?.rows.length ?? 0) > 0) return;
    client()
      .getTargets(props.predictionId, { limit: 1 })
      .then(
        (p) => {
          const size = setSizeOf(p.rows[0]?.cells);
          if (size !== null) setSetSize(size);
        },
        () => undefined,
      );
  }, [needSize]);

  // A first page answered before the whole table was read has no counts: ask once for them.
  const fullPage = page !== null && full;
  useEffect(() => {
    if (!fullPage || facets || page?.facets) return;
    client()
      .getTargets(props.predictionId, { limit: 1, sort: "score", order: "desc" })
      .then(
        (p) => p.facets && setFacets(p.facets),
        () => undefined,
      );
  }, [fullPage]);

  if (!page)
    return (
      <div class="target-table">
        {error ? (
          <p class="error" role="alert">
            {error}
          </p>
        ) : (
          <Pending what="the ranked targets" class="muted table-pending" />
        )}
      </div>
    );

  const columns = shown ?? DEFAULT_COLUMNS.filter((c) => page.columns.includes(c));
  const showTier = full && (facets ? Object.keys(facets.tier).length > 0 : page.rows.some((r) => r.tier));
  const hasSet = page.columns.includes("in_prediction_set");
  const pinnedId = page.pinned ? String(page.pinned.cells.id ?? "") : null;
  const rows = page.rows.filter((r) => String(r.cells.id ?? "") !== pinnedId);
  const setSentence = setSizeSentence(setSize, page.total_rows);
  const pages = pageCount(page.matched_rows);
  const pageNow = Math.floor(page.offset / PAGE) + 1;
  const lastOffset = offsetOfPage(pages, page.matched_rows);
  const go = (to: number) => {
    if (to !== offset) setOffset(to);
  };
  const sortBy = (c: string) => {
    if (c === sort) setOrder(order === "asc" ? "desc" : "asc");
    else {
      setSort(c);
      setOrder(ascendingFirst(c) ? "asc" : "desc");
    }
    setOffset(0);
  };
  const toggle = (id: string) => {
    const next = new Set(open);
    if (next.has(id)) next.delete(id);
    else next.add(id);
    setOpen(next);
  };
  const rowProps = { columns, highlight: props.highlight, showTier, inSetMark: hasSet, action: props.action };

  return (
    <div class="target-table">
      <TableControls
        query={query}
        onQuery={setQuery}
        filters={full ? { facets, tier, direction } : null}
        onTier={(v) => {
          setTier(v);
          setOffset(0);
        }}
        onDirection={(v) => {
          setDirection(v);
          setOffset(0);
        }}
        fold={
          canFold
            ? {
                on: fold,
                toggle: () => {
                  setFold(!fold);
                  setOffset(0);
                },
              }
            : null
        }
        columns={{
          all: page.columns,
          shown: columns,
          toggle: (c) =>
            setShown(
              columns.includes(c)
                ? columns.filter((x) => x !== c)
                : page.columns.filter((x) => x === c || columns.includes(x)),
            ),
        }}
      />
      {hasSet && (
        <p class="small set-note" data-testid="prediction-set-note">
          {setSentence && <strong data-testid="prediction-set-size">{setSentence} </strong>}● marks the set’s
          members: the fewest most probable candidates that held the driver in 90 % of comparable development
          experiments, by the model’s calibration.
          {props.roughCalibration
            ? " The model saw few experiments like this one, so this calibration is rough (see the warnings)."
            : ""}
        </p>
      )}
      {error && (
        <p class="error" role="alert">
          {error}
        </p>
      )}
      <div class="table-scroll" tabIndex={0} role="region" aria-label="Ranked targets">
        <table class={busy ? "data busy" : "data"} data-testid="target-table" aria-busy={busy}>
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
                      {columnTitle(c)}
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
                return c === "id" && props.action
                  ? [
                      th,
                      <th key="action" scope="col">
                        Explain
                      </th>,
                    ]
                  : [th];
              })}
              {showTier && (
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
          {page.pinned && (
            <tbody class="pinned-body">
              <TargetRow
                row={page.pinned}
                pinned
                open={open.has(pinnedId!)}
                onToggle={toggle}
                {...rowProps}
              />
            </tbody>
          )}
          <tbody>
            {rows.map((r) => {
              const id = String(r.cells.id ?? "");
              return (
                <TargetRow
                  key={id}
                  row={r}
                  pinned={false}
                  open={open.has(id)}
                  onToggle={toggle}
                  {...rowProps}
                />
              );
            })}
          </tbody>
        </table>
        {page.rows.length === 0 && (
          <p class="muted empty-table" data-testid="no-rows">
            No candidate matches {q ? `“${q}”` : "these filters"}. Change the search or set a filter back to
            “all”.
          </p>
        )}
      </div>
      <div class="pager">
        <span class="muted" data-testid="target-table-footer" role="status" aria-atomic="true">
          {busy
            ? "Loading the rows…"
            : page.matched_rows === 0
              ? "0 rows"
              : `Rows ${(page.offset + 1).toLocaleString("en")}–${Math.min(page.offset + page.rows.length, page.matched_rows).toLocaleString("en")} of ${page.matched_rows.toLocaleString("en")}`}
          {busy
            ? ""
            : page.matched_rows !== page.total_rows
              ? ` (${page.total_rows.toLocaleString("en")} candidates in all)`
              : " candidates"}
        </span>
        <span class="spacer" />
        <span class="pager-buttons">
          <button type="button" disabled={offset === 0} onClick={() => go(0)} aria-label="First page">
            «
          </button>
          <button type="button" disabled={offset === 0} onClick={() => go(Math.max(0, offset - PAGE))}>
            Previous
          </button>
          {pages > 1 ? (
            <form
              class="page-jump"
              onSubmit={(e) => {
                e.preventDefault();
                const n = Number(goTo);
                if (goTo !== "" && Number.isFinite(n)) go(offsetOfPage(n, page.matched_rows));
                setGoTo("");
              }}
            >
              <label>
                Page{" "}
                <input
                  type="number"
                  name="page"
                  inputMode="numeric"
                  min={1}
                  max={pages}
                  placeholder={String(pageNow)}
                  value={goTo}
                  onInput={(e) => setGoTo((e.target as HTMLInputElement).value)}
                  data-testid="page-input"
                />{" "}
                of {pages.toLocaleString("en")}
              </label>{" "}
              <button type="submit">Go</button>
            </form>
          ) : null}
          <button
            type="button"
            disabled={page.offset + PAGE >= page.matched_rows}
            onClick={() => go(offset + PAGE)}
          >
            Next
          </button>
          <button
            type="button"
            disabled={page.offset + PAGE >= page.matched_rows}
            onClick={() => go(lastOffset)}
            aria-label="Last page"
          >
            »
          </button>
        </span>
      </div>
    </div>
  );
}
