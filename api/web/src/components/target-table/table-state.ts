/**
 * The target table's place (sort, direction, page, search, filters) as the page's query string,
 * so that Back, a reload or a shared link opens the table where it was. Values a link cannot be
 * trusted to carry sensibly (an unknown tier, a negative offset) fall back to the default.
 */
export const PAGE = 50;

const TIERS = ["measured", "not_measured", "not_expressed"];
const DIRECTIONS = ["activated", "inhibited", "undetermined"];

export interface TableState {
  sort: string;
  order: "asc" | "desc";
  offset: number;
  q: string;
  tier: string;
  direction: string;
  fold: boolean;
}

export const DEFAULT_STATE: TableState = {
  sort: "rank",
  order: "asc",
  offset: 0,
  q: "",
  tier: "",
  direction: "",
  fold: true,
};

/** The table's state read from a query string (`location.search`). */
export function readTableState(search: string): TableState {
  const u = new URLSearchParams(search);
  const s = { ...DEFAULT_STATE };
  const sort = u.get("sort");
  if (sort && /^[A-Za-z0-9_.-]{1,64}$/.test(sort)) s.sort = sort;
  const order = u.get("order");
  if (order === "asc" || order === "desc") s.order = order;
  const offset = Number(u.get("offset") ?? "0");
  if (Number.isInteger(offset) && offset > 0 && offset <= 1_000_000) s.offset = offset - (offset % PAGE);
  const q = (u.get("q") ?? "").trim();
  if (q.length <= 128) s.q = q;
  const tier = u.get("tier");
  if (tier && TIERS.includes(tier)) s.tier = tier;
  const direction = u.get("direction");
  if (direction && DIRECTIONS.includes(direction)) s.direction = direction;
  if (u.get("fold") === "0") s.fold = false;
  return s;
}

/**
 * `search` with the table's state written in (defaults left out, other parameters kept), as
 * `?…` or "" when nothing is left.
 */
export function writeTableState(search: string, s: TableState): string {
  const u = new URLSearchParams(search);
  const set = (k: string, v: string, dflt: string) => (v === dflt ? u.delete(k) : u.set(k, v));
  set("sort", s.sort, DEFAULT_STATE.sort);
  set("order", s.order, DEFAULT_STATE.order);
  set("offset", String(s.offset), "0");
  set("q", s.q, "");
  set("tier", s.tier, "");
  set("direction", s.direction, "");
  set("fold", s.fold ? "1" : "0", "1");
  const text = u.toString();
  return text ? `?${text}` : "";
}

/** Pages of `PAGE` rows that `rows` rows fill (at least 1, so that "page 1 of 1" reads right). */
export const pageCount = (rows: number): number => Math.max(1, Math.ceil(rows / PAGE));

/** The offset of page `n` (counted from 1), kept inside the table. */
export function offsetOfPage(n: number, rows: number): number {
  const last = pageCount(rows);
  const page = Number.isFinite(n) ? Math.min(last, Math.max(1, Math.round(n))) : 1;
  return (page - 1) * PAGE;
}
