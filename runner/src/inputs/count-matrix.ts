/**
 * Choosing the count matrix and the raw-count test (model.md §3.2).
 */
import { JobFailure } from "@causeway/contract";
import { COUNT_MATRIX_CANDIDATES, type AnnData, type CsrMatrix, type MatrixName } from "../anndata/index.ts";

/** Stored non-zeros examined by the raw-count test. */
export const RAW_TEST_SAMPLE = 1_000_000;

/** The chosen matrix, in var order, and why earlier candidates were passed over. */
export interface CountMatrixChoice {
  name: MatrixName;
  matrix: CsrMatrix;
  rejected: { name: MatrixName; reason: string }[];
}

/** mulberry32: a tiny deterministic PRNG, so the sampled values are the same on every run. */
export function prng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const fmt = (v: number): string => (Number.isInteger(v) ? String(v) : String(Number(v.toPrecision(4))));

/** Why `m` is not raw counts, or null when it passes the test. */
export function rawCountProblem(m: CsrMatrix): string | null {
  const nnz = m.data.length;
  const n = Math.min(nnz, RAW_TEST_SAMPLE);
  const rand = prng(0x5eed);
  let max = -Infinity;
  for (let s = 0; s < n; s++) {
    const v = m.data[nnz <= RAW_TEST_SAMPLE ? s : Math.floor(rand() * nnz)]!;
    if (v === 0) continue;
    if (!Number.isFinite(v)) return "non-finite values (NaN or infinity)";
    if (v < 0) return `negative values such as ${fmt(v)}`;
    if (Math.abs(v - Math.round(v)) > 1e-6) return `non-integer values such as ${fmt(v)}`;
    if (v > max) max = v;
  }
  if (!(max >= 1))
    return max === -Infinity ? "no non-zero values" : `values below 1 only (largest ${fmt(max)})`;
  const totals = observationTotals(m).filter((t) => t > 0);
  if (totals.length >= 2) {
    let lo = Infinity;
    let hi = -Infinity;
    for (const t of totals) {
      if (t < lo) lo = t;
      if (t > hi) hi = t;
    }
    if (hi - lo <= 1e-3 * hi)
      return `looks library-size normalized (every observation totals about ${fmt(hi)})`;
  }
  return null;
}

/** Σ over genes per observation. */
export function observationTotals(m: CsrMatrix): Float64Array {
  const totals = new Float64Array(m.nRows);
  for (let i = 0; i < m.nRows; i++) {
    let s = 0;
    for (let k = m.indptr[i]!; k < m.indptr[i + 1]!; k++) s += m.data[k]!;
    totals[i] = s;
  }
  return totals;
}

/**
 * raw.X re-indexed to var's genes, or a reason it cannot be: every var name must occur once
 * in raw.var_names (raw usually holds more genes than X; the extra ones are dropped).
 */
function alignRaw(ad: AnnData, raw: CsrMatrix): CsrMatrix | string {
  const rawIndex = ad.rawVar?.index ?? [];
  const pos = new Map<string, number>();
  for (let j = 0; j < rawIndex.length; j++) {
    if (pos.has(rawIndex[j]!)) return "raw.var_names are not unique";
    pos.set(rawIndex[j]!, j);
  }
  const toVar = new Int32Array(rawIndex.length).fill(-1);
  for (let j = 0; j < ad.var.index.length; j++) {
    const p = pos.get(ad.var.index[j]!);
    if (p === undefined) return `raw.var_names lack the gene ${ad.var.index[j]}`;
    toVar[p] = j;
  }
  const indptr = new Int32Array(raw.nRows + 1);
  const indices: number[] = [];
  const data: number[] = [];
  for (let i = 0; i < raw.nRows; i++) {
    for (let k = raw.indptr[i]!; k < raw.indptr[i + 1]!; k++) {
      const j = toVar[raw.indices[k]!]!;
      if (j < 0) continue;
      indices.push(j);
      data.push(raw.data[k]!);
    }
    indptr[i + 1] = indices.length;
  }
  return {
    nRows: raw.nRows,
    nCols: ad.nVars,
    indptr,
    indices: Int32Array.from(indices),
    data: Float64Array.from(data),
  };
}

const DISPLAY: Record<MatrixName, string> = {
  "layers/counts": 'layers["counts"]',
  "layers/raw_counts": 'layers["raw_counts"]',
  "layers/count": 'layers["count"]',
  "raw/X": "raw.X",
  X: "X",
};

/** The first candidate that passes the raw-count test; `counts_not_raw` when none does. */
export function chooseCountMatrix(ad: AnnData, fileLabel: string): CountMatrixChoice {
  const rejected: { name: MatrixName; reason: string }[] = [];
  for (const name of COUNT_MATRIX_CANDIDATES) {
    const m = ad.matrices.get(name);
    if (!m) continue;
    const aligned = name === "raw/X" ? alignRaw(ad, m) : m;
    if (typeof aligned === "string") {
      rejected.push({ name, reason: aligned });
      continue;
    }
    const problem = rawCountProblem(aligned);
    if (problem === null) return { name, matrix: aligned, rejected };
    rejected.push({ name, reason: problem });
  }
  const last = rejected.at(-1);
  throw new JobFailure(
    "counts_not_raw",
    `The ${fileLabel} does not hold raw counts (${last ? `${DISPLAY[last.name]}: ${last.reason}` : "no expression matrix was found"}). ` +
      'Upload raw integer counts (not normalized or log-transformed) in X or in layers["counts"].',
    rejected.map((r) => `${r.name}: ${r.reason}`).join("; "),
  );
}
