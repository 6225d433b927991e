/**
 * Choosing the count matrix and the raw-count test (model.md §3.2). The candidates and their
 * order come from the reader (`countMatrixOrder` in ../anndata/layout.ts).
 */
import { JobFailure } from "@causeway/contract";
import type { AnnData, CsrMatrix, DataFrame, MatrixName } from "../anndata/index.ts";

/** Stored non-zeros examined by the raw-count test. */
export const RAW_TEST_SAMPLE = 1_000_000;

/**
 * Non-integer values above this are not on a log scale (log1p of CP10k stays under 10, log2 of
 * CPM under 21): with totals that vary like library sizes, they look like estimated counts.
 */
const ESTIMATED_COUNTS_MIN_MAX = 50;

/** The chosen matrix and why earlier candidates were passed over. */
export interface CountMatrixChoice {
  name: MatrixName;
  /** Observations × the genes of `genes`. */
  matrix: CsrMatrix;
  /**
   * The genes of the matrix's columns: raw.var for raw.X (raw keeps every gene when X was cut to
   * highly variable genes, and library sizes are sums over all of them), var otherwise.
   */
  genes: DataFrame;
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

/** Why a matrix is not raw counts; `estimated` when its values look like estimated counts. */
interface CountProblem {
  reason: string;
  estimated: boolean;
}

const problem = (reason: string, estimated = false): CountProblem => ({ reason, estimated });

/** The total every observation shares within 0.1 % (scaled data), or null when totals vary. */
function sharedTotal(m: CsrMatrix): number | null {
  const totals = observationTotals(m).filter((t) => t > 0);
  if (totals.length < 2) return null;
  let lo = Infinity;
  let hi = -Infinity;
  for (const t of totals) {
    if (t < lo) lo = t;
    if (t > hi) hi = t;
  }
  return hi - lo <= 1e-3 * hi ? hi : null;
}

function countProblem(m: CsrMatrix): CountProblem | null {
  const nnz = m.data.length;
  const n = Math.min(nnz, RAW_TEST_SAMPLE);
  const rand = prng(0x5eed);
  let max = -Infinity;
  let fractional: number | null = null;
  for (let s = 0; s < n; s++) {
    const v = m.data[nnz <= RAW_TEST_SAMPLE ? s : Math.floor(rand() * nnz)]!;
    if (v === 0) continue;
    if (!Number.isFinite(v)) return problem("non-finite values (NaN or infinity)");
    if (v < 0) return problem(`negative values such as ${fmt(v)}`);
    if (fractional === null && Math.abs(v - Math.round(v)) > 1e-6) fractional = v;
    if (v > max) max = v;
  }
  if (max === -Infinity) return problem("no non-zero values");
  const shared = sharedTotal(m);
  const normalized = (total: number) =>
    problem(`looks library-size normalized (every observation totals about ${fmt(total)})`);
  if (fractional !== null) {
    if (shared !== null) return normalized(shared);
    const nonInteger = `non-integer values such as ${fmt(fractional)}`;
    // Salmon/kallisto through tximport and ambient-RNA removal (SoupX, CellBender) give counts
    // with fractions: large values whose totals vary like library sizes, unlike log or
    // normalized data. They are reported, never rounded here: rounding is the submitter's call.
    if (max > ESTIMATED_COUNTS_MIN_MAX)
      return problem(
        `${nonInteger}, up to ${fmt(max)}, with totals that vary like library sizes: they look like estimated counts`,
        true,
      );
    return problem(nonInteger);
  }
  if (max < 1) return problem(`values below 1 only (largest ${fmt(max)})`);
  return shared === null ? null : normalized(shared);
}

/** Why `m` is not raw counts, or null when it passes the test. */
export function rawCountProblem(m: CsrMatrix): string | null {
  return countProblem(m)?.reason ?? null;
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

/** How a matrix is named to the user: `X`, `raw.X`, `layers["counts"]`. */
export function matrixLabel(name: MatrixName): string {
  if (name === "X") return "X";
  if (name === "raw/X") return "raw.X";
  return `layers[${JSON.stringify(name.slice("layers/".length))}]`;
}

/**
 * The first candidate that passes the raw-count test; `counts_not_raw`, naming every matrix
 * checked and why it failed, when none does.
 */
export function chooseCountMatrix(ad: AnnData, fileLabel: string): CountMatrixChoice {
  const rejected: CountMatrixChoice["rejected"] = [];
  const estimated: MatrixName[] = [];
  for (const name of ad.candidates) {
    const matrix = ad.matrices.get(name);
    if (!matrix) {
      rejected.push({ name, reason: ad.unread.get(name) ?? "not read" });
      continue;
    }
    const found = countProblem(matrix);
    // The reader reads raw.var whenever it reads raw.X.
    if (found === null) return { name, matrix, genes: name === "raw/X" ? ad.rawVar! : ad.var, rejected };
    rejected.push({ name, reason: found.reason });
    if (found.estimated) estimated.push(name);
  }
  const checked = rejected.map((r) => `${matrixLabel(r.name)}: ${r.reason}`).join("; ");
  const rounding =
    estimated.length === 0
      ? ""
      : ` If ${estimated.map(matrixLabel).join(" and ")} ${estimated.length === 1 ? "holds" : "hold"} estimated counts ` +
        "(Salmon or kallisto through tximport, SoupX, CellBender), round them to integers before upload " +
        "(e.g. round() of tximport's counts); they are not rounded here.";
  throw new JobFailure(
    "counts_not_raw",
    `The ${fileLabel} does not hold raw counts in any matrix checked (${checked}). ` +
      'Upload raw integer counts (not normalized or log-transformed) in X, in a layer such as layers["counts"], or in raw.X.' +
      rounding,
    rejected.map((r) => `${r.name}: ${r.reason}`).join("; "),
  );
}
