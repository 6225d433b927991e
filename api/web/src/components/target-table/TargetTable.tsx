/**
 * The ranked target table, paged by the service (GET /v1/predictions/{id}/targets): sort by any
 * column, search by symbol, filter by tier and direction, single-edge proxies folded under their
 * hub, the validated target's own row pinned on top (and not listed a second time). Every column
 * header explains itself with the "how to read" text and links to it. A model that gives each
 * candidate a probability and a 90 % prediction set (`probability`, `in_prediction_set`) gets
 * both shown, whichever version writes them.
 */
import { useEffect, useRef, useState } from "preact/hooks";
import { TARGET_COLUMNS } from "@causeway/api/schemas/field-docs.ts";
import { client, type TargetsPageQuery, type TargetsPageResult } from "../../client.ts";
import { explain } from "../../explain.ts";
import { Pending } from "../Pending.tsx";
import { ascendingFirst, columnTitle, DEFAULT_COLUMNS, docOf } from "./columns.ts";
import { TableControls, type Facets } from "./TableControls.tsx";
import { TargetRow, type RowAction } from "./TargetRow.tsx";

const PAGE = 50;
/** A 90 % set at least this large is said in words: the data do not single out a few candidates. */
const LARGE_SET = 20;

export function TargetTable(props: {
  predictionId: string;
  search: string;
  onSearch: (q: string) => void;
  highlight: string | null;
  action?: RowAction;
}) {
  const [sort, setSort] = useState("rank");
  const [order, setOrder] = useState<"asc" | "desc">("asc");
  const [offset, setOffset] = useState(0);
  const [tier, setTier] = useState("");
  const [direction, setDirection] = useState("");
  const [fold, setFold] = useState(true);
  const [query, setQuery] = useState(props.search);
  const [page, setPage] = useState<TargetsPageResult | null>(null);
  const [facets, setFacets] = useState<Facets | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [shown, setShown] = useState<string[] | null>(null);
  const [open, setOpen] = useState<Set<string>>(new Set());
  const asked = useRef(0);

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
    const query: TargetsPageQuery = { offset, limit: PAGE, sort, order };
    if (q) query.q = q;
    if (full) {
      if (tier) query.tier = tier;
      if (direction) query.direction = direction;
      if (canFold && fold) query.fold_proxies = true;
    }
    const n = ++asked.current;
    client()
      .getTargets(props.predictionId, query)
      .then(
        (p) => {
          if (n !== asked.current) return;
          setPage(p);
          if (p.facets) setFacets(p.facets);
          setError(null);
        },
        (err: unknown) => n === asked.current && setError(explain(err)),
      );
  }, [props.predictionId, offset, sort, order, q, tier, direction, fold, full, canFold]);

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
  const setOnPage = page.rows.filter((r) => r.cells.in_prediction_set === true).length;
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
          ● marks the 90 % prediction set: the candidates that together hold the true target with 90 %
          probability, by the model's calibration.
          {offset === 0 && sort === "rank" && !q && setOnPage >= LARGE_SET
            ? ` The set is large (${setOnPage >= PAGE ? `more than ${PAGE}` : setOnPage} candidates): these data do not single out a few candidates, so read the top ranks as a list to test rather than an answer.`
            : ""}
        </p>
      )}
      {error && (
        <p class="error" role="alert">
          {error}
        </p>
      )}
      <div class="table-scroll" tabIndex={0} role="region" aria-label="Ranked targets">
        <table class="data" data-testid="target-table">
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
        <span class="muted" data-testid="target-table-footer">
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
    </div>
  );
}
