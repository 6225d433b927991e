/**
 * Pages of a completed prediction's target_scores.tsv: sorted, filtered and sliced on the server
 * from the file the runner wrote once, so a browser never loads the whole status body. The
 * parsed table is kept per stored object (an LRU of a few tables: one is ~1 MB for 4,265
 * rows), so paging, sorting and searching after the first request read nothing from storage.
 *
 * Tier redaction is the status route's (present.ts): an external account sees the columns
 * id, score, rank, rank_percentage and is_deg only, may sort by those only, and gets no tier,
 * direction or proxy information (they are derived from hidden columns).
 */
import { symbolOf } from "@causeway/contract";
import { booleanCell, numberCell, parseTsv } from "@causeway/runner/artifacts";
import type { ObjectStore } from "@causeway/runner/storage";
import type { ResultFileMap } from "../../db/jobs.ts";
import type {
  TargetDirection,
  TargetTier,
  TargetsPage,
  TargetsQuery,
  TargetRow,
} from "../../schemas/targets.ts";
import { readArtifact } from "./artifacts.ts";

/** The columns an external account sees (the status route's public result row). */
export const PUBLIC_COLUMNS = ["id", "score", "rank", "rank_percentage", "is_deg"] as const;

export type Cell = string | number | boolean | null;

/** A parsed target_scores.tsv with what the filters need, computed once. */
export interface TargetTable {
  columns: string[];
  rows: Cell[][];
  /** Lower-cased gene symbol of each row (the search matches it). */
  symbols: string[];
  tiers: (TargetTier | null)[];
  directions: (TargetDirection | null)[];
  /** Row index of each id. */
  rowOf: Map<string, number>;
  /** Ids of the single-edge proxies of each hub, in rank order. */
  proxiesOf: Map<string, string[]>;
  /** Whether each row is a proxy (proxy_of names a hub present in the table). */
  isProxy: boolean[];
}

const finite = (v: number | null): number | null => (v !== null && Number.isFinite(v) ? v : null);

/**
 * A cell by its own text: TRUE/FALSE a boolean, a number a number (non-finite ones null), NA or
 * empty null, anything else text. Typed cell by cell, so a page parsed alone types its cells
 * exactly as the whole table does.
 */
function typedCell(c: string | undefined): Cell {
  if (c === undefined || c === "NA" || c === "") return null;
  const b = booleanCell(c);
  if (b !== null) return b;
  const n = numberCell(c);
  return n !== null ? finite(n) : c;
}

/** Tier of a row as the v2 ranking places it (score-targets-v2 rankTiers), before the proxy rule. */
function ownTier(get: (c: string) => Cell, has: (c: string) => boolean): TargetTier | null {
  // v1 has no tiers: it writes none of the columns the tiers come from.
  if (!has("unmeasured") && !has("pvalue_expressed")) return null;
  const pExpressed = get("pvalue_expressed");
  const notExpressed =
    get("protein_expressed") === false && (typeof pExpressed !== "number" || pExpressed < 0.05);
  if (notExpressed) return "not_expressed";
  if (get("unmeasured") === "after_measured" && get("gene_measured") === false) return "not_measured";
  return "measured";
}

const TIER_ORDER: Record<TargetTier, number> = { measured: 0, not_measured: 1, not_expressed: 2 };

function ownDirection(get: (c: string) => Cell, has: (c: string) => boolean): TargetDirection | null {
  if (has("activation_state")) {
    const s = get("activation_state");
    return s === "activated" || s === "inhibited" || s === "undetermined" ? s : "undetermined";
  }
  if (!has("activation_z")) return null;
  const z = get("activation_z");
  return typeof z === "number" && z > 0
    ? "activated"
    : typeof z === "number" && z < 0
      ? "inhibited"
      : "undetermined";
}

/** Parses target_scores.tsv into a TargetTable. */
export function parseTargetTable(text: string): TargetTable {
  const { columns, rows: raw } = parseTsv(text);
  const rows: Cell[][] = raw.map((r) => columns.map((_, j) => typedCell(r[j])));
  const col = new Map(columns.map((c, j) => [c, j]));
  const has = (c: string) => col.has(c);
  const idAt = col.get("id") ?? -1;
  const ids = rows.map((r) => (idAt >= 0 ? String(r[idAt] ?? "") : ""));
  const rowOf = new Map(ids.map((id, i) => [id, i]));
  const getter = (r: Cell[]) => (c: string) => {
    const j = col.get(c);
    return j === undefined ? null : (r[j] ?? null);
  };
  const proxyAt = col.get("proxy_of");
  const hubOf = rows.map((r) => {
    const hub = proxyAt === undefined ? null : r[proxyAt];
    return typeof hub === "string" && rowOf.has(hub) ? hub : null;
  });
  const own = rows.map((r) => ownTier(getter(r), has));
  // A proxy never outranks its hub, so it takes the hub's tier when that is lower.
  const tiers = own.map((t, i) => {
    const hub = hubOf[i];
    const hubTier = hub === null ? null : own[rowOf.get(hub)!]!;
    return t !== null && hubTier !== null && TIER_ORDER[hubTier] > TIER_ORDER[t] ? hubTier : t;
  });
  const proxiesOf = new Map<string, string[]>();
  hubOf.forEach((hub, i) => {
    if (hub === null) return;
    const list = proxiesOf.get(hub);
    if (list) list.push(ids[i]!);
    else proxiesOf.set(hub, [ids[i]!]);
  });
  return {
    columns,
    rows,
    symbols: ids.map((id) => symbolOf(id).toLowerCase()),
    tiers,
    directions: rows.map((r) => ownDirection(getter(r), has)),
    rowOf,
    proxiesOf,
    isProxy: hubOf.map((h) => h !== null),
  };
}

/** Compares two cells for sorting: nulls last whatever the order. */
function compareCells(a: Cell, b: Cell, desc: boolean): number {
  if (a === null || b === null) return a === b ? 0 : a === null ? 1 : -1;
  let c: number;
  if (typeof a === "number" && typeof b === "number") c = a - b;
  else if (typeof a === "boolean" && typeof b === "boolean") c = Number(a) - Number(b);
  else c = String(a) < String(b) ? -1 : String(a) > String(b) ? 1 : 0;
  return desc ? -c : c;
}

/** The query's rows of the table, as row indices in the requested order. */
function selectRows(t: TargetTable, q: TargetsQuery, full: boolean): number[] {
  const needle = q.q?.trim().toLowerCase() ?? "";
  const out: number[] = [];
  for (let i = 0; i < t.rows.length; i++) {
    if (needle !== "" && !t.symbols[i]!.includes(needle)) continue;
    if (full && q.tier !== undefined && t.tiers[i] !== q.tier) continue;
    if (full && q.direction !== undefined && t.directions[i] !== q.direction) continue;
    // A folded proxy is listed under its hub; a search still finds it on its own.
    if (full && q.fold_proxies && needle === "" && t.isProxy[i]) continue;
    out.push(i);
  }
  const j = t.columns.indexOf(q.sort);
  const desc = q.order === "desc";
  // Ties keep file (rank) order.
  if (j >= 0) out.sort((a, b) => compareCells(t.rows[a]![j] ?? null, t.rows[b]![j] ?? null, desc) || a - b);
  return out;
}

function rowOut(t: TargetTable, i: number, visible: number[], full: boolean): TargetRow {
  const r = t.rows[i]!;
  const cells: Record<string, Cell> = {};
  for (const j of visible) cells[t.columns[j]!] = r[j] ?? null;
  if (!full) return { cells };
  const id = String(cells.id ?? "");
  return {
    cells,
    tier: t.tiers[i] ?? null,
    direction: t.directions[i] ?? null,
    proxies: t.proxiesOf.get(id) ?? [],
  };
}

/** How many rows have each tier and each direction (values no row has are left out). */
export function facetsOf(t: TargetTable): NonNullable<TargetsPage["facets"]> {
  const tier: Partial<Record<TargetTier, number>> = {};
  const direction: Partial<Record<TargetDirection, number>> = {};
  for (const v of t.tiers) if (v !== null) tier[v] = (tier[v] ?? 0) + 1;
  for (const v of t.directions) if (v !== null) direction[v] = (direction[v] ?? 0) + 1;
  return { tier, direction };
}

/** One page of the table for an account of the given tier. */
export function pageOf(
  t: TargetTable,
  q: TargetsQuery,
  full: boolean,
  pinnedId: string | null,
): Omit<TargetsPage, "prediction_id" | "result_set"> {
  const visible = t.columns
    .map((c, j) => [c, j] as const)
    .filter(([c]) => full || (PUBLIC_COLUMNS as readonly string[]).includes(c))
    .map(([, j]) => j);
  const selected = selectRows(t, q, full);
  const slice = selected.slice(q.offset, q.offset + q.limit);
  const pinnedAt = pinnedId === null ? undefined : t.rowOf.get(pinnedId);
  return {
    columns: visible.map((j) => t.columns[j]!),
    total_rows: t.rows.length,
    matched_rows: selected.length,
    offset: q.offset,
    limit: q.limit,
    sort: q.sort,
    order: q.order,
    rows: slice.map((i) => rowOut(t, i, visible, full)),
    pinned: pinnedAt === undefined ? null : rowOut(t, pinnedAt, visible, full),
    ...(full ? { facets: facetsOf(t) } : {}),
  };
}

/** Parsed tables by object key (keys are unique per job attempt, so an entry never goes stale). */
export class TargetTableCache {
  private readonly entries = new Map<string, Promise<TargetTable | null>>();
  private readonly capacity: number;

  constructor(capacity = 8) {
    this.capacity = capacity;
  }

  /** The parsed table when it is cached and parsed already, without reading anything. */
  async peek(files: ResultFileMap | null, name: string): Promise<TargetTable | null> {
    const key = files?.[name];
    const entry = key ? this.entries.get(key) : undefined;
    if (!entry) return null;
    const settled = await Promise.race([entry, Promise.resolve(undefined)]);
    return settled ?? null;
  }

  /** The table of `name` in `files`; null when the job has no such file. */
  async get(store: ObjectStore, files: ResultFileMap | null, name: string): Promise<TargetTable | null> {
    const key = files?.[name];
    if (!key) return null;
    let entry = this.entries.get(key);
    if (entry) {
      // Most recently used last.
      this.entries.delete(key);
      this.entries.set(key, entry);
      return entry;
    }
    entry = readArtifact(store, files, name).then((buf) =>
      buf ? parseTargetTable(buf.toString("utf8")) : null,
    );
    this.entries.set(key, entry);
    // A failed read is not remembered.
    entry.catch(() => this.entries.delete(key));
    while (this.entries.size > this.capacity) this.entries.delete(this.entries.keys().next().value!);
    return entry;
  }
}

/** Whether a query is the table's first view: file order, nothing filtered (the page a browser opens with). */
export function isFileOrder(q: TargetsQuery): boolean {
  return q.sort === "rank" && q.order === "asc" && !q.q && !q.tier && !q.direction && !q.fold_proxies;
}

/**
 * A page in file order from the text alone, parsing only its rows (and the pinned one): what a
 * first request answers while the whole table is parsed for the next ones. The file is written
 * in rank order (model.md §13), which is what `sort=rank` gives. Proxies and tiers of the rows
 * are left to the whole table (the first view does not fold), so proxies come back empty.
 */
export function headPageOf(
  text: string,
  q: TargetsQuery,
  full: boolean,
  pinnedId: string | null,
): Omit<TargetsPage, "prediction_id" | "result_set"> | null {
  const header = text.slice(0, text.indexOf("\n"));
  let total = 0;
  let cut = -1;
  const want = q.offset + q.limit;
  for (let i = text.indexOf("\n"); i >= 0 && i < text.length - 1; i = text.indexOf("\n", i + 1)) {
    total++;
    if (total === want + 1) cut = i;
  }
  const head = parseTargetTable(cut < 0 ? text : text.slice(0, cut));
  // Tiers of proxies depend on their hubs: only trusted from the whole table.
  if (head.columns.includes("proxy_of") || !head.columns.includes(q.sort)) return null;
  let pinnedLine: string | undefined;
  if (pinnedId !== null) {
    const at = text.indexOf(`\n${pinnedId}\t`);
    if (at >= 0) {
      const end = text.indexOf("\n", at + 1);
      pinnedLine = text.slice(at + 1, end < 0 ? undefined : end).replace(/\r$/, "");
    }
  }
  const pinned = pinnedLine ? parseTargetTable(`${header}\n${pinnedLine}`) : null;
  // The facets count every row: left to the whole table.
  const { facets: _facets, ...page } = pageOf(head, q, full, null);
  return {
    ...page,
    total_rows: total,
    matched_rows: total,
    pinned:
      pinned && pinned.rows.length === 1
        ? pageOf(pinned, { ...q, offset: 0, limit: 1 }, full, null).rows[0]!
        : null,
  };
}
