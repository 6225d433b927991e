import { describe, expect, it } from "vitest";
import type { CsrMatrix } from "../anndata/index.ts";
import { RAW_TEST_SAMPLE, rawCountProblem } from "./count-matrix.ts";

/** A matrix of `nRows` rows with the given stored values spread over 10 columns. */
function matrix(values: number[], nRows: number): CsrMatrix {
  const indptr = new Int32Array(nRows + 1);
  const per = Math.ceil(values.length / nRows);
  for (let i = 0; i < nRows; i++) indptr[i + 1] = Math.min(values.length, (i + 1) * per);
  return {
    nRows,
    nCols: 10,
    indptr,
    indices: Int32Array.from(values, (_, k) => k % 10),
    data: Float64Array.from(values),
  };
}

describe("raw-count test (model.md §3.2)", () => {
  it("accepts integer counts with varying totals", () => {
    expect(rawCountProblem(matrix([1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12], 3))).toBeNull();
  });

  it("gives each reason", () => {
    expect(rawCountProblem(matrix([1, -2, 3, 4], 2))).toBe("negative values such as -2");
    expect(rawCountProblem(matrix([1, 2.37, 3, 4], 2))).toBe("non-integer values such as 2.37");
    expect(rawCountProblem(matrix([1, 2 + 5e-7, 3, 4], 2))).toBeNull();
    expect(rawCountProblem(matrix([0.25, 0.5], 1))).toMatch(/non-integer/);
    expect(rawCountProblem(matrix([], 2))).toBe("no non-zero values");
    expect(rawCountProblem(matrix([5, 5, 4, 6, 7, 3], 3))).toMatch(/library-size normalized/);
    expect(rawCountProblem(matrix([NaN, 1], 1))).toMatch(/non-finite/);
  });

  it("samples a fixed subset of large matrices, the same on every run", () => {
    const n = RAW_TEST_SAMPLE * 3;
    const values = new Array<number>(n).fill(2);
    values[n - 7] = 1.5;
    const m = matrix(values, 1000);
    for (let i = 0; i < 1000; i++) m.data[m.indptr[i]!] = 1 + (i % 7);
    const first = rawCountProblem(m);
    expect(rawCountProblem(m)).toBe(first);
    m.data.fill(-1, 0, n);
    expect(rawCountProblem(m)).toMatch(/negative/);
  });
});
