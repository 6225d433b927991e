import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import h5wasm from "h5wasm/node";
import type { Group } from "h5wasm/node";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { KANG_DIR } from "../../../test/shared-data.ts";
import { columnAsStrings, inspectAnnData, readAnnData, readLimits } from "./index.ts";
import { writeTestH5ad, type TestH5ad } from "../../test/fixtures/anndata/write-test-h5ad.ts";

let dir: string;
beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), "causeway-anndata-"));
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe("readAnnData on the Kang 2018 files", () => {
  it("reads the merged CD14+ file: CSR X, categorical obs, var columns", async () => {
    const ad = await readAnnData(join(KANG_DIR, "kang2018_ifnb_cd14mono.h5ad"));
    expect([ad.nObs, ad.nVars]).toEqual([400, 1267]);
    expect([...ad.matrices.keys()]).toEqual(["X"]);
    const X = ad.matrices.get("X")!;
    expect(X.data.length).toBe(190_578);
    expect(X.indptr[400]).toBe(190_578);
    expect([...ad.obs.columns.keys()]).toEqual(["condition", "sample", "donor", "cell_type"]);
    const condition = columnAsStrings(ad.obs.columns.get("condition")!);
    expect(new Set(condition)).toEqual(new Set(["ctrl", "stim"]));
    expect(condition.filter((c) => c === "stim")).toHaveLength(200);
    expect(ad.obs.columns.get("donor")).toMatchObject({ kind: "categorical", categories: ["101", "107"] });
    expect(ad.var.index.slice(0, 3)).toEqual(["HES4", "ISG15", "AURKAIP1"]);
    expect([...ad.var.columns.keys()]).toEqual(["ensembl_id", "name_in_source", "hgnc_symbol"]);
    expect(ad.layers).toEqual([]);
    expect(ad.rawVar).toBeNull();
  });

  it("refuses the 1,556-cell PBMC file under a per-file cap of 1000 but reads it without one", async () => {
    const path = join(KANG_DIR, "kang2018_ifnb_pbmc.h5ad");
    await expect(readAnnData(path, readLimits(1000))).rejects.toMatchObject({
      code: "too_many_observations",
    });
    const layout = await inspectAnnData(path, readLimits(null));
    expect([layout.nObs, layout.nVars]).toEqual([1556, 1267]);
  });
});

describe("encodings", () => {
  const X = [
    [1, 0, 3, 0],
    [0, 5, 0, 0],
    [0, 0, 0, 0],
    [2, 2, 2, 2],
  ];
  const base: TestH5ad = {
    X,
    obs: { condition: ["ctrl", null, "stim", "stim"], score: [0.5, 1.5, 2.5, 3.5] },
    varNames: ["A", "B", "C", "D"],
    var: { hgnc_symbol: ["A", "B", "", "D"] },
  };
  const dense = (m: {
    nRows: number;
    nCols: number;
    indptr: Int32Array;
    indices: Int32Array;
    data: Float64Array;
  }) => {
    const out = Array.from({ length: m.nRows }, () => new Array<number>(m.nCols).fill(0));
    for (let i = 0; i < m.nRows; i++)
      for (let k = m.indptr[i]!; k < m.indptr[i + 1]!; k++) out[i]![m.indices[k]!]! += m.data[k]!;
    return out;
  };

  it.each([
    ["csr", "<i4"],
    ["csc", "<i4"],
    ["dense", "<f4"],
    ["legacy-csr", "<i8"],
    ["csr", "<f8"],
  ] as const)("X as %s %s", async (xEncoding, xDtype) => {
    const path = join(dir, `x-${xEncoding}-${xDtype}.h5ad`.replace("<", ""));
    await writeTestH5ad(path, { ...base, xEncoding, xDtype });
    const ad = await readAnnData(path);
    expect(dense(ad.matrices.get("X")!)).toEqual(X);
  });

  it("layers, raw/X with raw.var, categorical missing codes, numeric columns, legacy categoricals", async () => {
    const path = join(dir, "full.h5ad");
    const rawX = X.map((r) => [...r, 9]);
    await writeTestH5ad(path, {
      ...base,
      layers: { counts: X, raw_counts: X, spliced: X },
      raw: { X: rawX, varNames: ["A", "B", "C", "D", "E"] },
      legacyCategoricals: true,
    });
    const ad = await readAnnData(path);
    expect([...ad.matrices.keys()]).toEqual([
      "layers/counts",
      "layers/raw_counts",
      "raw/X",
      "X",
      "layers/spliced",
    ]);
    expect(ad.candidates).toEqual([...ad.matrices.keys()]);
    expect(ad.unread.size).toBe(0);
    expect(ad.layers).toEqual(["counts", "raw_counts", "spliced"]);
    expect(ad.rawVar?.index).toEqual(["A", "B", "C", "D", "E"]);
    expect(dense(ad.matrices.get("raw/X")!)).toEqual(rawX);
    expect(columnAsStrings(ad.obs.columns.get("condition")!)).toEqual(["ctrl", null, "stim", "stim"]);
    expect(Array.from((ad.obs.columns.get("score") as { values: Float64Array }).values)).toEqual([
      0.5, 1.5, 2.5, 3.5,
    ]);
    expect(columnAsStrings(ad.var.columns.get("hgnc_symbol")!)).toEqual(["A", "B", "", "D"]);
  });

  it("passes over a layer that is not a count matrix, or that would exceed the limits, instead of failing the file", async () => {
    const path = join(dir, "odd-layers.h5ad");
    await writeTestH5ad(path, { ...base, layers: { UMIs: X, velocity: X } });
    await h5wasm.ready;
    const f = new h5wasm.File(path, "a");
    try {
      const layers = f.get("layers") as Group;
      // An embedding-like group that is no sparse matrix, and a 1-D array.
      layers.create_group("neighbors").create_attribute("encoding-type", "dict");
      layers.create_dataset({ name: "score", data: Float64Array.from([1, 2, 3, 4]) });
    } finally {
      f.close();
    }
    const ad = await readAnnData(path);
    expect(ad.candidates).toEqual([
      "layers/UMIs",
      "X",
      "layers/neighbors",
      "layers/score",
      "layers/velocity",
    ]);
    expect([...ad.matrices.keys()]).toEqual(["layers/UMIs", "X", "layers/velocity"]);
    expect(ad.unread.get("layers/neighbors")).toMatch(/not a sparse matrix this reader knows/);
    expect(ad.unread.get("layers/score")).toMatch(/two-dimensional/);
    // X is always read; the other candidates only while the file's values stay under the limit.
    const nnz = ad.matrices.get("X")!.data.length;
    const tight = await readAnnData(path, { ...readLimits(null), maxTotalValues: 2 * nnz });
    expect([...tight.matrices.keys()]).toEqual(["layers/UMIs", "X"]);
    expect(tight.unread.get("layers/velocity")).toMatch(
      /^not read: with its 7 values the file.s matrices would exceed the 14 accepted/,
    );
    const layout = await inspectAnnData(path);
    expect(layout.candidates).toEqual(ad.candidates);
  });

  it("still fails a file whose X is not a matrix", async () => {
    const path = join(dir, "x-strings.h5ad");
    await writeTestH5ad(path, { ...base, xStrings: true, layers: { counts: X } });
    await expect(readAnnData(path)).rejects.toMatchObject({ code: "invalid_h5ad" });
  });

  it("nullable integer and string columns (values + mask)", async () => {
    const path = join(dir, "nullable.h5ad");
    await writeTestH5ad(path, base);
    await h5wasm.ready;
    const f = new h5wasm.File(path, "a");
    try {
      const obs = f.get("obs") as Group;
      const columns: [string, string, Int32Array | string[]][] = [
        ["n_genes", "nullable-integer", Int32Array.from([5, 6, 7, 8])],
        ["batch", "nullable-string-array", ["a", "b", "c", "d"]],
      ];
      for (const [name, type, values] of columns) {
        const g = obs.create_group(name);
        g.create_attribute("encoding-type", type);
        g.create_dataset({ name: "values", data: values });
        g.create_dataset({ name: "mask", data: Uint8Array.from([0, 1, 0, 0]) });
      }
    } finally {
      f.close();
    }
    const ad = await readAnnData(path);
    expect(Array.from((ad.obs.columns.get("n_genes") as { values: Float64Array }).values)).toEqual([
      5,
      NaN,
      7,
      8,
    ]);
    expect(columnAsStrings(ad.obs.columns.get("batch")!)).toEqual(["a", null, "c", "d"]);
  });
});
