import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { JobFailure } from "@causeway/contract";
import { HGNC_DIR } from "../../../test/shared-data.ts";
import { writeTestH5ad, type TestH5ad } from "../../test/fixtures/anndata/write-test-h5ad.ts";
import { readAnnData, type CsrMatrix } from "../anndata/index.ts";
import { SymbolTable } from "../symbols/index.ts";
import { chooseCountMatrix, observationTotals, RAW_TEST_SAMPLE, rawCountProblem } from "./count-matrix.ts";
import { prepareMergedDataset } from "./prepare-merged.ts";

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

let dir: string;
let n = 0;
beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), "causeway-count-matrix-"));
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const GENES = ["ISG15", "MX1", "IFIT1", "STAT1", "GAPDH", "ACTB"];
/** Genes raw keeps beside GENES when X was cut to highly variable genes. */
const MORE_GENES = ["B2M", "TMSB4X", "MALAT1", "FTL"];

/** Counts of 2 × 2 samples of 12 cells, integer and with varying totals. */
const counts = (genes: string[]): number[][] =>
  Array.from({ length: 48 }, (_, c) => genes.map((_, g) => 1 + ((c * 7 + g * 3) % 11) + (c % 5) * g));
const logNormalized = (m: number[][]): number[][] =>
  m.map((row) => {
    const total = row.reduce((a, b) => a + b, 0);
    return row.map((v) => Math.log1p((1e4 * v) / total));
  });

function spec(X: number[][], extra: Partial<TestH5ad> = {}): TestH5ad {
  const arm = (c: number) => (c < 24 ? "ctrl" : "IFNb");
  return {
    X,
    xDtype: "<f8",
    obs: {
      condition: X.map((_, c) => arm(c)),
      sample: X.map((_, c) => `${arm(c)}${Math.floor(c / 12) % 2}`),
      cell_type: X.map(() => "monocyte"),
    },
    varNames: GENES,
    ...extra,
  };
}

async function file(s: TestH5ad): Promise<string> {
  const path = join(dir, `f${n++}.h5ad`);
  await writeTestH5ad(path, s);
  return path;
}

function failure(f: () => unknown): JobFailure {
  try {
    f();
  } catch (err) {
    expect(err).toBeInstanceOf(JobFailure);
    return err as JobFailure;
  }
  throw new Error("expected a JobFailure");
}

describe("where the counts are found (model.md §3.2)", () => {
  const X = counts(GENES);

  it.each(["raw", "UMIs", "umi", "spliced"])(
    "takes raw counts from layers[%j] beside a log-normalized X",
    async (layer) => {
      const ad = await readAnnData(await file(spec(logNormalized(X), { layers: { [layer]: X } })));
      const choice = chooseCountMatrix(ad, "dataset");
      expect(choice.name).toBe(`layers/${layer}`);
      expect(choice.genes.index).toEqual(GENES);
      expect(choice.rejected.map((r) => r.name)).toEqual(layer === "spliced" ? ["X"] : []);
    },
  );

  it("tries layers named as counts first, X before partial counts, then any other layer", async () => {
    const lognorm = logNormalized(X);
    const ad = await readAnnData(
      await file(spec(lognorm, { layers: { Ms: lognorm, unspliced: X, spliced: lognorm, counts: lognorm } })),
    );
    expect(ad.candidates).toEqual(["layers/counts", "X", "layers/spliced", "layers/Ms", "layers/unspliced"]);
    const choice = chooseCountMatrix(ad, "dataset");
    expect(choice.name).toBe("layers/unspliced");
    expect(choice.rejected.map((r) => r.name)).toEqual(["layers/counts", "X", "layers/spliced", "layers/Ms"]);
  });

  it("names every matrix checked when none holds raw counts", async () => {
    const lognorm = logNormalized(X);
    const ad = await readAnnData(
      await file(spec(lognorm, { layers: { scaled: lognorm.map((r) => r.map((v) => v - 6)) } })),
    );
    const err = failure(() => chooseCountMatrix(ad, "control file"));
    expect(err.code).toBe("counts_not_raw");
    expect(err.message).toMatch(
      /^The control file does not hold raw counts in any matrix checked \(X: non-integer values such as [\d.]+; layers\["scaled"\]: negative values such as -[\d.]+\)\./,
    );
    expect(err.message).toContain('layers["counts"]');
    expect(err.message).not.toMatch(/estimated counts/);
  });

  it("says when non-integer values look like estimated counts, and does not round them", async () => {
    // Ambient-RNA removal (SoupX without rounding) scales every count down a little.
    const soup = X.map((r) => r.map((v) => v * 9.3));
    const ad = await readAnnData(await file(spec(soup)));
    const err = failure(() => chooseCountMatrix(ad, "dataset"));
    expect(err.code).toBe("counts_not_raw");
    expect(err.message).toMatch(
      /X: non-integer values such as [\d.]+, up to [\d.]+, with totals that vary like library sizes: they look like estimated counts/,
    );
    expect(err.message).toContain("round them to integers before upload (e.g. round() of tximport's counts)");
    // Normalized data (constant totals) and log data are not taken for estimated counts.
    const cp10k = X.map((r) => {
      const total = r.reduce((a, b) => a + b, 0);
      return r.map((v) => (1e4 * v) / total);
    });
    const cp10kFile = await readAnnData(await file(spec(cp10k)));
    const normalized = failure(() => chooseCountMatrix(cp10kFile, "dataset"));
    expect(normalized.message).toMatch(/library-size normalized \(every observation totals about 10000\)/);
    expect(normalized.message).not.toMatch(/estimated counts/);
  });

  it("takes raw.X with raw.var's genes when X was cut to highly variable genes", async () => {
    const allGenes = [...MORE_GENES, ...GENES];
    const raw = counts(allGenes);
    const hvg = raw.map((r) => r.slice(MORE_GENES.length));
    const path = await file(
      spec(logNormalized(hvg), {
        var: { highly_variable: GENES.map(() => "True") },
        raw: { X: raw, varNames: allGenes },
      }),
    );
    const choice = chooseCountMatrix(await readAnnData(path), "dataset");
    expect(choice.name).toBe("raw/X");
    expect(choice.genes.index).toEqual(allGenes);
    expect(choice.matrix.nCols).toBe(allGenes.length);
    expect(observationTotals(choice.matrix)[0]).toBe(raw[0]!.reduce((a, b) => a + b, 0));

    // A job analyses every gene of raw, with library sizes over all of them.
    const symbols = await SymbolTable.load(HGNC_DIR);
    const [c] = await prepareMergedDataset(path, { symbols, maxObsPerArm: 1000 });
    expect(c!.pseudoBulk.genes).toEqual([...allGenes].sort());
    const ctrl0 = c!.pseudoBulk.samples.find((s) => s.sample === "ctrl0")!;
    const expected = raw.slice(0, 12).reduce((t, r) => t + r.reduce((a, b) => a + b, 0), 0);
    expect(ctrl0.librarySize).toBe(expected);
    expect(c!.metadata.countMatrix[0]!.name).toBe("raw/X");
    expect(c!.metadata.genes.nInput).toBe(allGenes.length);
  });
});
