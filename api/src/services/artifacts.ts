/**
 * Reading a job's stored artifacts for the status and derived routes. Object keys come only
 * from the result-file map the runner reported; clients never name a key.
 */
import { decodeNpyFloat32, parseNpyFloat32Header, type Float32Matrix } from "@causeway/runner/artifacts";
import { booleanCell, numberCell, parseTsv } from "@causeway/runner/artifacts";
import { ObjectNotFound, type ObjectStore } from "@causeway/runner/storage";
import { z } from "zod";
import type { BASE_SCORE_COLUMNS } from "@causeway/contract";
import type { ResultFileMap } from "../db/jobs.ts";
import type { PredictionResultRow, SourceInfluenceMatrixPreview } from "../schemas/predictions.ts";

/** An artifact listed by the runner but absent or unreadable in storage. */
export class ArtifactMissing extends Error {
  constructor(name: string) {
    super(`artifact ${name} is missing`);
    this.name = "ArtifactMissing";
  }
}

/** Object storage did not answer (as opposed to a missing object): 503 on JSON routes, 500 on image routes. */
export class StorageUnavailable extends Error {
  constructor(cause: unknown) {
    super("object storage unavailable", { cause });
    this.name = "StorageUnavailable";
  }
}

async function guarded<T>(read: () => Promise<T>): Promise<T | null> {
  try {
    return await read();
  } catch (err) {
    if (err instanceof ObjectNotFound) return null;
    throw new StorageUnavailable(err);
  }
}

/** Reads an artifact by its stable name; null when the job has no such file. */
export async function readArtifact(
  store: ObjectStore,
  files: ResultFileMap | null,
  name: string,
): Promise<Buffer | null> {
  const key = files?.[name];
  if (!key) return null;
  try {
    return await store.get(key);
  } catch (err) {
    if (err instanceof ObjectNotFound) return null;
    throw new StorageUnavailable(err);
  }
}

export async function readJsonArtifact(
  store: ObjectStore,
  files: ResultFileMap | null,
  name: string,
): Promise<unknown> {
  const buf = await readArtifact(store, files, name);
  if (buf === null) return undefined;
  try {
    return JSON.parse(buf.toString("utf8")) as unknown;
  } catch {
    return undefined;
  }
}

/** The score-table columns the status preview adds for internal accounts (the spec's result row). */
const FULL_COLUMNS = [
  "pvalue",
  "z_score",
  "protein_expressed",
  "node_type",
  "n_degs_significant",
  "percentage_degs_significant",
] as const satisfies readonly (typeof BASE_SCORE_COLUMNS)[number][];

/** First `maxRows` rows of target_scores.tsv; public rows carry only id, score, rank, rank_percentage, is_deg. */
export function resultRows(tsv: string, maxRows: number, full: boolean): PredictionResultRow[] {
  const { columns, rows } = parseTsv(tsv);
  const at = (name: string) => columns.indexOf(name);
  const idx = {
    id: at("id"),
    score: at("score"),
    rank: at("rank"),
    rank_percentage: at("rank_percentage"),
    is_deg: at("is_deg"),
    pvalue: at("pvalue"),
    z_score: at("z_score"),
    protein_expressed: at("protein_expressed"),
    node_type: at("node_type"),
    n_degs_significant: at("n_degs_significant"),
    percentage_degs_significant: at("percentage_degs_significant"),
  };
  const cell = (r: string[], i: number) => (i >= 0 ? r[i] : undefined);
  const finite = (v: number | null) => (v !== null && Number.isFinite(v) ? v : null);
  return rows.slice(0, maxRows).map((r) => {
    const row: PredictionResultRow = {
      id: cell(r, idx.id) ?? "",
      score: finite(numberCell(cell(r, idx.score))) ?? 0,
      rank: finite(numberCell(cell(r, idx.rank))),
      rank_percentage: finite(numberCell(cell(r, idx.rank_percentage))),
      is_deg: booleanCell(cell(r, idx.is_deg)),
    };
    if (full) {
      for (const c of FULL_COLUMNS) {
        const raw = cell(r, idx[c]);
        if (c === "protein_expressed") row[c] = booleanCell(raw);
        else if (c === "node_type") row[c] = raw === undefined || raw === "NA" ? null : raw;
        else row[c] = finite(numberCell(raw));
      }
    }
    return row;
  });
}

/** The ids column of target_scores.tsv (causal-analysis target check). */
export function targetIds(tsv: string): Set<string> {
  const { columns, rows } = parseTsv(tsv);
  const i = columns.indexOf("id");
  return new Set(i < 0 ? [] : rows.map((r) => r[i] ?? ""));
}

/** One row by id, as a record of raw cells. */
export function findTsvRow(tsv: string, id: string): Record<string, string> | null {
  const { columns, rows } = parseTsv(tsv);
  const i = columns.indexOf("id");
  const row = rows.find((r) => r[i] === id);
  return row ? Object.fromEntries(columns.map((c, j) => [c, row[j] ?? "NA"])) : null;
}

const MatrixIds = z.object({ row_ids: z.array(z.string()), column_ids: z.array(z.string()) });

/** Top-left block of the source-influence matrix; NaN (and any non-finite value) becomes null. */
export function matrixPreview(
  npy: Buffer,
  idsJson: unknown,
  maxRows: number,
  maxColumns: number,
): SourceInfluenceMatrixPreview {
  const ids = MatrixIds.parse(idsJson);
  return previewOf(decodeNpyFloat32(npy), ids, maxRows, maxColumns);
}

/**
 * The preview from `m`, whose data may hold only the leading rows (at least the previewed
 * ones); `m.rows` is the matrix's full row count.
 */
function previewOf(
  m: Float32Matrix,
  ids: z.infer<typeof MatrixIds>,
  maxRows: number,
  maxColumns: number,
): SourceInfluenceMatrixPreview {
  if (ids.row_ids.length !== m.rows || ids.column_ids.length !== m.cols)
    throw new Error("matrix ids do not match its shape");
  const nRows = Math.min(maxRows, m.rows);
  const nCols = Math.min(maxColumns, m.cols);
  const data: (number | null)[][] = [];
  for (let i = 0; i < nRows; i++) {
    const row: (number | null)[] = new Array<number | null>(nCols);
    for (let j = 0; j < nCols; j++) {
      const v = m.data[i * m.cols + j]!;
      // 9 significant digits round-trip a float32 exactly, without float64 noise.
      row[j] = Number.isFinite(v) ? Number(v.toPrecision(9)) : null;
    }
    data.push(row);
  }
  return {
    row_ids: ids.row_ids.slice(0, nRows),
    column_ids: ids.column_ids.slice(0, nCols),
    data,
    truncated_rows: m.rows > nRows,
    truncated_columns: m.cols > nCols,
  };
}

// Enough for any header the runner writes (64-byte aligned, a few hundred bytes at most).
const NPY_HEAD_BYTES = 4096;

/**
 * The same preview as `matrixPreview`, reading only the .npy header and the previewed rows
 * through ranged reads; null when the job has no such files.
 */
export async function readMatrixPreview(
  store: ObjectStore,
  files: ResultFileMap | null,
  npyName: string,
  idsName: string,
  maxRows: number,
  maxColumns: number,
): Promise<SourceInfluenceMatrixPreview | null> {
  const block = await readMatrixBlock(store, files, npyName, idsName, maxRows);
  return block && previewOf(block.m, block.ids, maxRows, maxColumns);
}

/**
 * `readMatrixPreview` with the cells as JSON text: `preview.data` is empty and `dataJson` holds
 * exactly the bytes of `JSON.stringify` of the cells `readMatrixPreview` returns. For the status body, where
 * building a million numbers and encoding them again took most of the time.
 */
export async function readMatrixPreviewJson(
  store: ObjectStore,
  files: ResultFileMap | null,
  npyName: string,
  idsName: string,
  maxRows: number,
  maxColumns: number,
): Promise<{ preview: SourceInfluenceMatrixPreview; dataJson: Buffer } | null> {
  const block = await readMatrixBlock(store, files, npyName, idsName, maxRows);
  if (!block) return null;
  const { m, ids } = block;
  if (ids.row_ids.length !== m.rows || ids.column_ids.length !== m.cols)
    throw new Error("matrix ids do not match its shape");
  const nRows = Math.min(maxRows, m.rows);
  const nCols = Math.min(maxColumns, m.cols);
  return {
    preview: {
      row_ids: ids.row_ids.slice(0, nRows),
      column_ids: ids.column_ids.slice(0, nCols),
      data: [],
      truncated_rows: m.rows > nRows,
      truncated_columns: m.cols > nCols,
    },
    dataJson: matrixCellsJson(m, nRows, nCols),
  };
}

/** The .npy header, the ids and the leading `maxRows` rows of the matrix; null when absent. */
async function readMatrixBlock(
  store: ObjectStore,
  files: ResultFileMap | null,
  npyName: string,
  idsName: string,
  maxRows: number,
): Promise<{ m: Float32Matrix; ids: z.infer<typeof MatrixIds> } | null> {
  const key = files?.[npyName];
  if (!key) return null;
  const head = await guarded(() => store.getRange(key, 0, NPY_HEAD_BYTES));
  if (head === null) return null;
  const idsJson = await readJsonArtifact(store, files, idsName);
  if (idsJson === undefined) return null;
  const ids = MatrixIds.parse(idsJson);
  const { rows, cols, offset } = parseNpyFloat32Header(head);
  const end = offset + rows * cols * 4;
  // The whole-file check of decodeNpyFloat32: exactly `end` bytes long.
  const tail = end === 0 ? Buffer.alloc(0) : await guarded(() => store.getRange(key, end - 1, end + 1));
  if (tail === null) return null;
  if (end !== 0 && tail.length !== 1) throw new Error(".npy data length does not match its shape");
  const nRows = Math.min(maxRows, rows);
  const bytes = await guarded(() => store.getRange(key, offset, offset + nRows * cols * 4));
  if (bytes === null) return null;
  // Copy so the values are aligned regardless of the buffer's offset.
  const data = new Float32Array(nRows * cols);
  Buffer.from(data.buffer).set(bytes);
  return { m: { rows, cols, data }, ids };
}

/**
 * JSON text (ASCII bytes) of the top-left `nRows` × `nCols` cells, byte for byte what
 * JSON.stringify gives for previewOf's cells (9 significant digits, non-finite as null), several
 * times faster: a million cells formatted through toPrecision, numbers and strings took most of
 * a full status body's rendering. Hand-written because no library formats float32 this way.
 */
export function matrixCellsJson(m: Float32Matrix, nRows: number, nCols: number): Buffer {
  let buf = Buffer.allocUnsafe(nRows * nCols * 12 + 2 * nRows + 2);
  let at = 0;
  buf[at++] = 0x5b; // [
  for (let i = 0; i < nRows; i++) {
    const need = at + nCols * MAX_CELL_BYTES + 4;
    if (need > buf.length) {
      const bigger = Buffer.allocUnsafe(Math.max(need, 2 * buf.length));
      buf.copy(bigger, 0, 0, at);
      buf = bigger;
    }
    if (i > 0) buf[at++] = 0x2c; // ,
    buf[at++] = 0x5b;
    const base = i * m.cols;
    for (let j = 0; j < nCols; j++) {
      if (j > 0) buf[at++] = 0x2c;
      at = writeCell(buf, at, m.data[base + j]!);
    }
    buf[at++] = 0x5d; // ]
  }
  buf[at++] = 0x5d;
  return buf.subarray(0, at);
}

/** Longest cell text: "-1.23456789e-38" (15) or "-0.0000123456789" (16), with room to spare. */
const MAX_CELL_BYTES = 24;
const POW10 = Array.from({ length: 15 }, (_, k) => 10 ** k);
/** 10^-k as doubles (inexact: a comparison off by one ulp only sends a value the exact way). */
const TENTHS = Array.from({ length: 8 }, (_, k) => 10 ** -k);

/**
 * Writes String(Number(v.toPrecision(9))) (or null) at `at`; returns the end. Values in
 * [1e-6, 1e9), which JSON writes without an exponent, get their nine digits from one exact
 * power-of-ten scaling and a rounding: the scaled value's error is below 2e-7, so away from a
 * tie (checked) the rounding is toPrecision's. Everything else goes the slow, exact way.
 */
function writeCell(buf: Buffer, at: number, v: number): number {
  if (!Number.isFinite(v)) return at + buf.write("null", at, "latin1");
  if (v === 0) {
    buf[at] = 0x30;
    return at + 1;
  }
  let x = v;
  let sign = 0;
  if (x < 0) {
    x = -x;
    sign = 1;
  }
  if (x < 1e-6 || x >= 1e9) return at + buf.write(nineDigits(v), at, "latin1");
  // The decimal exponent, by comparison (Math.log10 costs more than the rest of the cell).
  let e = 0;
  if (x >= 1) while (x >= POW10[e + 1]!) e++;
  else
    do e--;
    while (e > -6 && x < TENTHS[-e]!);
  const scaled = x * POW10[8 - e]!;
  const floor = Math.floor(scaled);
  const frac = scaled - floor;
  if (Math.abs(frac - 0.5) < 1e-6) return at + buf.write(nineDigits(v), at, "latin1");
  let n = frac > 0.5 ? floor + 1 : floor;
  // An exponent off by one next to a power of ten, or a rounding up to 10^9: the exact way.
  if (n < 1e8 || n >= 1e9) return at + buf.write(nineDigits(v), at, "latin1");
  // Below 2^31 from here: integer arithmetic.
  n |= 0;
  let digits = 9;
  for (let q = (n / 10) | 0; n === q * 10; q = (n / 10) | 0) {
    n = q;
    digits--;
  }
  if (sign) buf[at++] = 0x2d; // -
  if (e < 0) {
    // 0.000ddd
    buf[at++] = 0x30;
    buf[at++] = 0x2e;
    for (let z = -e - 1; z > 0; z--) buf[at++] = 0x30;
    for (let p = at + digits - 1; p >= at; p--) {
      const q = (n / 10) | 0;
      buf[p] = 0x30 + n - q * 10;
      n = q;
    }
    return at + digits;
  }
  const whole = e + 1;
  if (digits <= whole) {
    // ddd000: no point.
    for (let p = at + digits - 1; p >= at; p--) {
      const q = (n / 10) | 0;
      buf[p] = 0x30 + n - q * 10;
      n = q;
    }
    at += digits;
    for (let z = whole - digits; z > 0; z--) buf[at++] = 0x30;
    return at;
  }
  // ddd.ddd
  const end = at + digits + 1;
  for (let p = end - 1; p >= at; p--) {
    if (p === at + whole) {
      buf[p] = 0x2e;
      continue;
    }
    const q = (n / 10) | 0;
    buf[p] = 0x30 + n - q * 10;
    n = q;
  }
  return end;
}

/** String(Number(v.toPrecision(9))) for finite v. */
function nineDigits(v: number): string {
  const s = v.toPrecision(9);
  // Exponent forms differ between toPrecision and String (e.g. 1.00000000e+10): rare, exact way.
  if (s.includes("e")) return String(Number(s));
  // Nine integer digits have no point and no fractional zeros to drop.
  if (!s.includes(".")) return s;
  let end = s.length;
  while (s.charCodeAt(end - 1) === 48) end--;
  if (s.charCodeAt(end - 1) === 46) end--;
  return end === s.length ? s : s.slice(0, end);
}

const TSV_CHUNK_BYTES = 64 * 1024;

/**
 * The header and first `maxRows` lines of a TSV artifact, read in growing ranges until enough
 * lines have arrived; the whole text when it is shorter. null when the job has no such file.
 * `parseTsv` of the result gives the same first `maxRows` rows as `parseTsv` of the whole file.
 */
export async function readTsvHead(
  store: ObjectStore,
  files: ResultFileMap | null,
  name: string,
  maxRows: number,
): Promise<string | null> {
  const key = files?.[name];
  if (!key) return null;
  const chunks: Buffer[] = [];
  let size = 0;
  let newlines = 0;
  let chunk = TSV_CHUNK_BYTES;
  for (;;) {
    const part = await guarded(() => store.getRange(key, size, size + chunk));
    if (part === null) return null;
    chunks.push(part);
    size += part.length;
    for (let i = part.indexOf(10); i >= 0; i = part.indexOf(10, i + 1)) newlines++;
    if (part.length < chunk) return Buffer.concat(chunks).toString("utf8");
    if (newlines > maxRows) break;
    chunk *= 2;
  }
  const all = Buffer.concat(chunks);
  let cut = -1;
  for (let n = 0; n <= maxRows; n++) cut = all.indexOf(10, cut + 1);
  // A CRLF line ends before its \r, as in parseTsv's split.
  const text = all.subarray(0, cut > 0 && all[cut - 1] === 13 ? cut - 1 : cut).toString("utf8");
  // parseTsv drops trailing empty lines, which inside the file are rows: read it whole then.
  if (/(^|\n)$/.test(text)) return (await readArtifact(store, files, name))?.toString("utf8") ?? null;
  return text;
}

/** For the image routes, whose contract answers storage faults with a generic 500 (service-spec §4.8, §4.12). */
export async function readArtifactOr500(
  store: ObjectStore,
  files: ResultFileMap | null,
  name: string,
): Promise<Buffer | null> {
  try {
    return await readArtifact(store, files, name);
  } catch (err) {
    throw err instanceof StorageUnavailable ? new Error("storage read failed", { cause: err }) : err;
  }
}
