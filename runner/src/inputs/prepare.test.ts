import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { HGNC_DIR, KANG_DIR } from "../../../test/shared-data.ts";
import { SymbolTable } from "../symbols/index.ts";
import { readAnnData, columnAsStrings } from "../anndata/index.ts";
import {
  writeTestH5ad,
  type TestColumn,
  type TestH5ad,
} from "../../test/fixtures/anndata/write-test-h5ad.ts";
import { foldChangesForSplitUpload, runDifferentialExpression } from "../de/index.ts";
import { prepareMergedDataset, prepareSplitDataset } from "./index.ts";
import type { PreparedContrast } from "./types.ts";

const SPLIT = join(KANG_DIR, "split_cd14mono");
let symbols: SymbolTable;
let dir: string;
let n = 0;

beforeAll(async () => {
  symbols = await SymbolTable.load(HGNC_DIR);
  dir = mkdtempSync(join(tmpdir(), "causeway-inputs-"));
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const file = async (spec: TestH5ad): Promise<string> => {
  const path = join(dir, `f${n++}.h5ad`);
  await writeTestH5ad(path, spec);
  return path;
};
const merged = (path: string, maxObsPerArm = 1000) => prepareMergedDataset(path, { symbols, maxObsPerArm });
const failure = async (p: Promise<unknown>) => {
  const err = await p.then(
    () => null,
    (e: unknown) => e,
  );
  expect(err).toMatchObject({ name: "JobFailure" });
  return err as { code: string; message: string };
};
const GENES = ["ISG15", "MX1", "IFIT1", "STAT1", "GAPDH", "ACTB"];
const split = (control: string, perturbed: string, dataset: Record<string, string> = {}) =>
  prepareSplitDataset(control, perturbed, ["ISG15", "MX1"], { symbols, maxObsPerFile: 1000, dataset });

/** Single-cell merged data: `cells[arm][sample]` cells per sample, counts from `value`. */
function singleCell(
  cells: [number[], number[]],
  value: (cell: number, gene: number) => number = (c, g) => 1 + ((c + g) % 4),
  extra: Partial<TestH5ad> = {},
): TestH5ad {
  const X: number[][] = [];
  const condition: string[] = [];
  const sample: string[] = [];
  const cellType: string[] = [];
  cells.forEach((perSample, arm) =>
    perSample.forEach((count, s) => {
      for (let c = 0; c < count; c++) {
        X.push(GENES.map((_, g) => value(X.length, g)));
        condition.push(arm === 0 ? "ctrl" : "IFNb");
        sample.push(`${arm === 0 ? "c" : "p"}${s}`);
        cellType.push("monocyte");
      }
    }),
  );
  return { X, obs: { condition, sample, cell_type: cellType }, varNames: GENES, ...extra };
}

describe("Kang 2018 CD14+ monocytes, merged upload", () => {
  let c: PreparedContrast;
  beforeAll(async () => {
    const contrasts = await merged(join(KANG_DIR, "kang2018_ifnb_cd14mono.h5ad"));
    expect(contrasts).toHaveLength(1);
    c = contrasts[0]!;
  });

  it("aggregates 400 cells into 4 donor-paired pseudo-bulk samples, ctrl vs stim", () => {
    expect(c.controlLevel).toBe("ctrl");
    expect(c.perturbedLevel).toBe("stim");
    expect(c.pseudoBulk.samples.map((s) => [s.id, s.arm, s.donor, s.nCells])).toEqual([
      ["ctrl101", 0, "101", 100],
      ["ctrl107", 0, "107", 100],
      ["stim101", 1, "101", 100],
      ["stim107", 1, "107", 100],
    ]);
    expect(c.design).toEqual({ paired: true, donors: ["101", "107"] });
    expect(c.logfcMethod).toBe("glm");
    expect(c.metadata.countMatrix[0]!.name).toBe("X");
    expect(c.metadata.columns).toEqual({
      condition: "condition",
      sample: "sample",
      donor: "donor",
      cellType: "cell_type",
    });
    expect(c.metadata.dataKind).toBe("single_cell");
  });

  it("fills the DatasetSummary", () => {
    expect(c.summary).toEqual({
      cell_type: "CD14+ Monocytes",
      disease_label: null,
      n_cells: 400,
      n_genes: 1266,
      n_perturbations: 1,
      n_degs: null,
    });
  });

  it("sorts genes by byte order and keeps library sizes as sums of all counts", () => {
    const genes = c.pseudoBulk.genes;
    expect([...genes].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0))).toEqual(genes);
    const S = c.pseudoBulk.samples.length;
    c.pseudoBulk.samples.forEach((s, j) => {
      let sum = 0;
      for (let g = 0; g < genes.length; g++) sum += c.pseudoBulk.counts[g * S + j]!;
      expect(sum).toBe(s.librarySize);
    });
  });

  it("gives mean_cp10k per arm that averages to 10^4 over genes summed", () => {
    const total = (a: Float64Array) => a.reduce((x, y) => x + y, 0);
    expect(total(c.meanCp10k.control)).toBeCloseTo(1e4, 6);
    expect(total(c.meanCp10k.perturbed)).toBeCloseTo(1e4, 6);
    const isg15 = c.pseudoBulk.genes.indexOf("ISG15");
    expect(c.meanCp10k.perturbed[isg15]!).toBeGreaterThan(20 * c.meanCp10k.control[isg15]!);
  });

  it("feeds the DE step directly (runner/src/de)", () => {
    const de = runDifferentialExpression(c.pseudoBulk, { paired: c.design.paired });
    const isg15 = de.genes.find((g) => g.gene === "ISG15");
    expect(isg15?.log2FC).toBeGreaterThan(3);
  });
});

describe("Kang 2018 split upload", () => {
  it("equals the reference pseudo-bulk sums and resolves the 65 outdated names via var hgnc_symbol", async () => {
    const degs = readFileSync(join(SPLIT, "degs.json"), "utf8");
    const s = await prepareSplitDataset(join(SPLIT, "control.h5ad"), join(SPLIT, "perturbed.h5ad"), degs, {
      symbols,
      maxObsPerFile: 1000,
    });
    expect(s.summary).toMatchObject({ n_degs: 433, cell_type: null, n_cells: null });
    expect(s.degs.symbols).toHaveLength(433);
    expect(s.degs.unresolved).toEqual([]);
    expect(s.degs.symbols.filter((d) => !s.pseudoBulk.genes.includes(d))).toEqual([]);
    expect(s.design.paired).toBe(true);
    expect(s.logfcMethod).toBe("glm");
    // Labels that fit the arms and a design paired by its donor column: nothing to warn about.
    expect(s.metadata.warnings).toEqual([]);
    expect(s.metadata.countMatrix.map((m) => m.name)).toEqual(["X", "X"]);

    // Reference: gene (var_names) × ctrl101 ctrl107 stim101 stim107, summed by python anndata.
    const lines = readFileSync(join(SPLIT, "pseudobulk_counts.tsv"), "utf8").trim().split("\n");
    const header = lines[0]!.split("\t");
    expect(header).toEqual(["gene", "ctrl101", "ctrl107", "stim101", "stim107"]);
    const ad = await readAnnData(join(SPLIT, "control.h5ad"));
    const hgnc = columnAsStrings(ad.var.columns.get("hgnc_symbol")!);
    const symbolOf = new Map(ad.var.index.map((name, g) => [name, hgnc[g]!]));
    const outdated = ad.var.index.filter((name, g) => name !== hgnc[g]);
    expect(outdated).toHaveLength(65);
    expect(outdated).toContain("IL8");
    expect(s.pseudoBulk.genes).toContain("CXCL8");
    expect(s.pseudoBulk.genes).not.toContain("IL8");

    const S = s.pseudoBulk.samples.length;
    const col = new Map(s.pseudoBulk.samples.map((x, j) => [x.id, j]));
    const row = new Map(s.pseudoBulk.genes.map((g, i) => [g, i]));
    expect(lines).toHaveLength(1268);
    let compared = 0;
    for (const line of lines.slice(1)) {
      const [name, ...values] = line.split("\t");
      const g = row.get(symbolOf.get(name!)!);
      expect(g, name).toBeDefined();
      header.slice(1).forEach((sample, k) => {
        expect(s.pseudoBulk.counts[g! * S + col.get(sample)!]).toBe(Number(values[k]));
        compared++;
      });
    }
    expect(compared).toBe(1267 * 4);
  });

  it("continues with pooled fold changes and a warning when a file has no sample column", async () => {
    // The same counts in both files, on different cells (the same cells would be one file twice).
    const spec = (level: string): TestH5ad => ({
      X: Array.from({ length: 30 }, (_, i) => GENES.map((_, g) => 1 + ((i + g) % 5))),
      obs: { condition: Array(30).fill(level), cell_type: Array(30).fill("monocyte") },
      obsNames: Array.from({ length: 30 }, (_, i) => `${level}-${i}`),
      varNames: GENES,
    });
    const s = await prepareSplitDataset(
      await file(spec("ctrl")),
      await file(spec("IFNb")),
      ["ISG15", "isg15", "IL8", "NOTAGENE", "notagene", " MX1 "],
      {
        symbols,
        maxObsPerFile: 1000,
      },
    );
    expect(s.logfcMethod).toBe("pooled_cpm");
    expect(s.replicated).toBe(false);
    expect(s.metadata.warnings).toEqual(
      expect.arrayContaining([
        "no_sample_column:control",
        "no_sample_column:perturbed",
        "pooled_fold_changes",
      ]),
    );
    expect(s.degs).toEqual({
      symbols: ["ISG15", "CXCL8", "MX1"],
      ambiguous: [],
      unresolved: ["NOTAGENE"],
      nDegs: 4,
    });
    expect(s.controlLevel).toBe("ctrl");
    expect(s.perturbedLevel).toBe("IFNb");
    const fc = foldChangesForSplitUpload(s.pseudoBulk, s.design);
    expect(fc.method).toBe("pooled_cpm");
    expect(fc.log2FC.get("ISG15")).toBeCloseTo(0, 1);
    const isg15 = s.pseudoBulk.genes.indexOf("ISG15");
    expect(s.pooled.counts[isg15 * 2]).toBe(
      Array.from({ length: 30 }, (_, i) => 1 + (i % 5)).reduce((a, b) => a + b),
    );
  });

  it("refuses a split file over the per-file observation cap", async () => {
    const big = await file(singleCell([[1001], []]));
    const small = await file(singleCell([[20, 20], []]));
    const err = await failure(prepareSplitDataset(big, small, ["ISG15"], { symbols, maxObsPerFile: 1000 }));
    expect(err.code).toBe("too_many_observations");
  });
});

describe("merged uploads: the checks of model.md §3 in order", () => {
  it("multiple_cell_types on the five-cell-type Kang PBMC file", async () => {
    const err = await failure(merged(join(KANG_DIR, "kang2018_ifnb_pbmc.h5ad")));
    expect(err.code).toBe("multiple_cell_types");
    expect(err.message).toContain('"CD14+ Monocytes"');
    // Quoted, so that "fix and resubmit" refills the whole level (a bare B cells read as B).
    expect(err.message).toContain('(for example cell_type="B cells")');
  });

  it("too_many_observations per arm (§18.2) even when the file total would pass per arm", async () => {
    const path = await file(
      singleCell([
        [600, 401],
        [500, 500],
      ]),
    );
    const err = await failure(merged(path));
    expect(err.code).toBe("too_many_observations");
    expect(err.message).toContain('"ctrl" has 1,001 observations');
    await expect(merged(path, 2000)).resolves.toHaveLength(1);
  });

  it.each([
    [
      "negative values",
      (c: number, g: number) => (g === 0 && c === 3 ? -1 : 2),
      /negative values such as -1/,
    ],
    [
      "non-integer values",
      (c: number, g: number) => (g === 1 && c === 5 ? 2.37 : 3),
      /non-integer values such as 2\.37/,
    ],
    [
      "library-size normalized",
      (c: number, g: number) => (g === 0 ? 50 + (c % 3) : g === 1 ? 50 - (c % 3) : 0),
      /library-size normalized/,
    ],
    ["values below 1", () => 1e-7, /values below 1 only/],
  ])("counts_not_raw: %s", async (_name, value, pattern) => {
    const err = await failure(
      merged(
        await file({
          ...singleCell(
            [
              [12, 12],
              [12, 12],
            ],
            value,
          ),
          xDtype: "<f8",
        }),
      ),
    );
    expect(err.code).toBe("counts_not_raw");
    expect(err.message).toMatch(pattern);
    expect(err.message).toContain('layers["counts"]');
  });

  it("prefers layers['counts'] over a normalized X, and aligns raw.X to var", async () => {
    const base = singleCell([
      [12, 12],
      [12, 12],
    ]);
    const normalized = base.X!.map((r) => r.map((v) => v / 3.3));
    const withLayer = await merged(
      await file({ ...base, X: normalized, xDtype: "<f8", layers: { counts: base.X! } }),
    );
    expect(withLayer[0]!.metadata.countMatrix[0]).toMatchObject({ name: "layers/counts", rejected: [] });
    const rawVars = ["EXTRA1", ...GENES].reverse();
    const rawX = base.X!.map((r) => rawVars.map((g) => (g === "EXTRA1" ? 7 : r[GENES.indexOf(g)]!)));
    const withRaw = await merged(
      await file({ ...base, X: normalized, xDtype: "<f8", raw: { X: rawX, varNames: rawVars } }),
    );
    expect(withRaw[0]!.metadata.countMatrix[0]!.name).toBe("raw/X");
    expect(Array.from(withRaw[0]!.pseudoBulk.counts)).toEqual(Array.from(withLayer[0]!.pseudoBulk.counts));
  });

  it("drops zero-total observations and counts them", async () => {
    const path = await file(
      singleCell(
        [
          [12, 12],
          [12, 12],
        ],
        (c, g) => (c === 0 || c === 30 ? 0 : 1 + ((c * (g + 1)) % 5)),
      ),
    );
    const [c] = await merged(path);
    expect(c!.metadata.droppedObservations.zeroTotal).toBe(2);
    expect(c!.summary.n_cells).toBe(46);
  });

  it("missing_condition_column", async () => {
    const spec = singleCell([
      [12, 12],
      [12, 12],
    ]);
    const { condition: _c, ...obs } = spec.obs;
    const err = await failure(merged(await file({ ...spec, obs })));
    expect(err.code).toBe("missing_condition_column");
  });

  it("finds columns case-insensitively and in priority order", async () => {
    const spec = singleCell([
      [12, 12],
      [12, 12],
    ]);
    const { condition, sample, cell_type } = spec.obs;
    const [c] = await merged(
      await file({ ...spec, obs: { " Treatment ": condition!, SAMPLE_ID: sample!, CellType: cell_type! } }),
    );
    expect(c!.metadata.columns).toEqual({
      condition: " Treatment ",
      sample: "SAMPLE_ID",
      donor: null,
      cellType: "CellType",
    });
  });

  it.each([
    [["drugA", "drugB"], /No level .* names a control/],
    [["ctrl", "control", "drug"], /Several levels/],
    [["untreated"], /has one level only/],
  ])("condition_control_ambiguous for levels %j", async (levels, pattern) => {
    const spec = singleCell([
      [12, 12],
      [12, 12],
    ]);
    const condition = spec.obs.condition!.map((_, i) => levels[i % levels.length]!);
    const err = await failure(merged(await file({ ...spec, obs: { ...spec.obs, condition } })));
    expect(err.code).toBe("condition_control_ambiguous");
    expect(err.message).toMatch(pattern);
  });

  it("one contrast per perturbation level (k = 2)", async () => {
    const spec = singleCell([
      [12, 12],
      [12, 12, 12, 12],
    ]);
    const condition = spec.obs.condition!.map((v, i) => (v === "ctrl" ? "DMSO" : i < 48 ? "drugA" : "drugB"));
    const contrasts = await merged(await file({ ...spec, obs: { ...spec.obs, condition } }));
    expect(contrasts.map((c) => [c.controlLevel, c.perturbedLevel, c.summary.n_perturbations])).toEqual([
      ["DMSO", "drugA", 2],
      ["DMSO", "drugB", 2],
    ]);
    expect(contrasts[1]!.pseudoBulk.samples.map((s) => s.id)).toEqual(["c0", "c1", "p2", "p3"]);
  });

  it("gene_symbols_unmapped names mouse symbols", async () => {
    const spec = singleCell([
      [12, 12],
      [12, 12],
    ]);
    const err = await failure(
      merged(await file({ ...spec, varNames: ["Gm42418", "Ly6c1", "Ly6a", "Klra8", "Ifi27l2a", "MX1"] })),
    );
    expect(err.code).toBe("gene_symbols_unmapped");
    expect(err.message).toMatch(/17% .* mouse gene symbols/);
  });

  it("maps Ensembl var_names and merges genes that resolve to one symbol by summing", async () => {
    const spec = singleCell([
      [12, 12],
      [12, 12],
    ]);
    // IL8 is CXCL8's previous symbol: the two columns become one gene.
    const names = [
      "ENSG00000187608",
      "ENSG00000157601.14",
      "ENSG00000185745",
      "ENSG00000115415",
      "IL8",
      "CXCL8",
    ];
    const [c] = await merged(await file({ ...spec, varNames: names }));
    expect(c!.pseudoBulk.genes).toEqual(["CXCL8", "IFIT1", "ISG15", "MX1", "STAT1"]);
    expect(c!.metadata.genes).toMatchObject({ nInput: 6, nResolved: 6, nMerged: 1 });
    const S = c!.pseudoBulk.samples.length;
    const cx = c!.pseudoBulk.genes.indexOf("CXCL8");
    let expected = 0;
    for (let i = 0; i < 12; i++) expected += spec.X![i]![4]! + spec.X![i]![5]!;
    expect(c!.pseudoBulk.counts[cx * S + 0]).toBe(expected);
  });

  it("missing_sample_column for single-cell data without samples, and for large unannotated 'bulk' arms", async () => {
    const spec = singleCell([
      [12, 12],
      [12, 12],
    ]);
    const { sample: _s, ...obs } = spec.obs;
    expect((await failure(merged(await file({ ...spec, obs })))).code).toBe("missing_sample_column");
    const bulk = singleCell([[60], [60]]);
    const { sample: _b, cell_type: _t, ...bulkObs } = bulk.obs;
    expect((await failure(merged(await file({ ...bulk, obs: bulkObs })))).code).toBe("missing_sample_column");
  });

  it("missing_cell_type_column for single-cell data", async () => {
    const spec = singleCell([
      [12, 12],
      [12, 12],
    ]);
    const { cell_type: _t, ...obs } = spec.obs;
    expect((await failure(merged(await file({ ...spec, obs })))).code).toBe("missing_cell_type_column");
  });

  it("multiple_cell_types on synthetic data", async () => {
    const spec = singleCell([
      [12, 12],
      [12, 12],
    ]);
    const cellType = spec.obs.cell_type!.map((_, i) => (i % 2 ? "B" : "T"));
    const err = await failure(merged(await file({ ...spec, obs: { ...spec.obs, cell_type: cellType } })));
    expect(err.code).toBe("multiple_cell_types");
  });

  it("insufficient_replicates after dropping samples under 10 cells", async () => {
    const err = await failure(
      merged(
        await file(
          singleCell([
            [12, 9],
            [12, 12],
          ]),
        ),
      ),
    );
    expect(err.code).toBe("insufficient_replicates");
    expect(err.message).toMatch(/"ctrl" has 1 .*c1 \(9\)/);
    const [c] = await merged(
      await file(
        singleCell([
          [12, 12, 9],
          [12, 12],
        ]),
      ),
    );
    expect(c!.metadata.droppedSamples).toEqual([{ sample: "c2", arm: 0, nCells: 9 }]);
    expect(c!.summary.n_cells).toBe(48);
  });

  it("bulk data: observations are samples; a donor column pairs them; a sample in both arms pairs by itself", async () => {
    const X = Array.from({ length: 6 }, (_, i) => GENES.map((_, g) => 10 + i * 3 + g));
    const condition = ["ctrl", "ctrl", "ctrl", "treated", "treated", "treated"];
    const unpaired = await merged(await file({ X, obs: { condition }, varNames: GENES }));
    expect(unpaired[0]!.metadata.dataKind).toBe("bulk");
    expect(unpaired[0]!.design.paired).toBe(false);
    expect(unpaired[0]!.pseudoBulk.samples.map((s) => s.nCells)).toEqual([1, 1, 1, 1, 1, 1]);
    const donor = ["d1", "d2", "d3", "d1", "d2", "d3"];
    const paired = await merged(await file({ X, obs: { condition, donor }, varNames: GENES }));
    expect(paired[0]!.design).toEqual({ paired: true, donors: ["d1", "d2", "d3"] });
    const sample = donor;
    const bySample = await merged(await file({ X, obs: { condition, sample }, varNames: GENES }));
    expect(bySample[0]!.design).toEqual({ paired: true, donors: ["d1", "d2", "d3"] });
    expect(bySample[0]!.pseudoBulk.samples.map((s) => s.id)).toEqual([
      "d1|control",
      "d2|control",
      "d3|control",
      "d1|perturbed",
      "d2|perturbed",
      "d3|perturbed",
    ]);
    const partial = ["d1", "d2", "d3", "d1", "d2", "d4"];
    const notPaired = await merged(await file({ X, obs: { condition, donor: partial }, varNames: GENES }));
    expect(notPaired[0]!.design.paired).toBe(false);
    expect(notPaired[0]!.metadata.warnings).toContain("donor_not_paired");
  });

  it("does not take the sample column as donor too (a column named like a donor, given as sample_column)", async () => {
    const X = Array.from({ length: 6 }, (_, i) => GENES.map((_, g) => 10 + i * 3 + g));
    const condition = ["ctrl", "ctrl", "ctrl", "treated", "treated", "treated"];
    // `patient` is among the donor names, so detection alone used to find it as the donor as well.
    const perArm = await prepareMergedDataset(
      await file({ X, obs: { condition, patient: ["c1", "c2", "c3", "t1", "t2", "t3"] }, varNames: GENES }),
      { symbols, maxObsPerArm: 1000, dataset: { sample_column: "patient" } },
    );
    expect(perArm[0]!.metadata.columns.donor).toBeNull();
    expect(perArm[0]!.design.paired).toBe(false);
    expect(perArm[0]!.metadata.warnings).not.toContain("donor_not_paired");
    // Ids shared by both arms still pair the design, as a donor column did.
    const shared = await prepareMergedDataset(
      await file({ X, obs: { condition, patient: ["d1", "d2", "d3", "d1", "d2", "d3"] }, varNames: GENES }),
      { symbols, maxObsPerArm: 1000, dataset: { sample_column: "patient" } },
    );
    expect(shared[0]!.design).toEqual({ paired: true, donors: ["d1", "d2", "d3"] });
    // A donor column the user names is used even when it is the sample column.
    const named = await prepareMergedDataset(
      await file({ X, obs: { condition, patient: ["c1", "c2", "c3", "t1", "t2", "t3"] }, varNames: GENES }),
      { symbols, maxObsPerArm: 1000, dataset: { sample_column: "patient", donor_column: "patient" } },
    );
    expect(named[0]!.metadata.columns.donor).toBe("patient");
    expect(named[0]!.metadata.warnings).toContain("donor_not_paired");
  });

  it("reads legacy categoricals and plain string columns", async () => {
    const spec = singleCell([
      [12, 12],
      [12, 12],
    ]);
    const a = await merged(await file({ ...spec, legacyCategoricals: true }));
    const b = await merged(await file({ ...spec, plainStrings: true }));
    expect(Array.from(a[0]!.pseudoBulk.counts)).toEqual(Array.from(b[0]!.pseudoBulk.counts));
    expect(a[0]!.pseudoBulk.samples).toHaveLength(4);
  });

  it("mean_cp10k is the mean over observations of 10^4 k/L", async () => {
    const spec = singleCell(
      [
        [12, 12],
        [12, 12],
      ],
      (c, g) => (g === 0 ? 1 + (c % 2) : 4),
    );
    const [c] = await merged(await file(spec));
    const isg15 = c!.pseudoBulk.genes.indexOf("ISG15");
    // ISG15 is 1 or 2 of totals 21 or 22, alternating.
    expect(c!.meanCp10k.control[isg15]).toBeCloseTo((1e4 * (1 / 21 + 2 / 22)) / 2, 9);
  });
});

/** Bulk data: one observation per entry of `condition`, counts varying by observation. */
function bulk(condition: string[], obs: Record<string, TestColumn> = {}): TestH5ad {
  return {
    X: condition.map((_, i) => GENES.map((_, g) => 10 + ((i * 7 + g * 3) % 11))),
    obs: { condition, ...obs },
    obsNames: condition.map((c, i) => `${c}-${i}`),
    varNames: GENES,
  };
}

/** One arm of a split pair: `cells` cells per sample of the arm `level`. */
function splitArm(level: string, cells: number[], obs: Record<string, TestColumn> = {}): TestH5ad {
  const spec = singleCell([cells, []], (c, g) => 1 + ((c * 3 + g * g + level.length) % 7));
  const n = spec.X!.length;
  return {
    ...spec,
    obs: { ...spec.obs, condition: Array<string>(n).fill(level), ...obs },
    obsNames: Array.from({ length: n }, (_, i) => `${level}-${i}`),
  };
}

describe("split uploads: the files are the arms they were uploaded as", () => {
  const kang = (name: string) => join(SPLIT, name);

  it("fails on the same file uploaded as both arms", async () => {
    const err = await failure(split(kang("control.h5ad"), kang("control.h5ad")));
    expect(err.code).toBe("condition_control_ambiguous");
    expect(err.message).toContain("same 200 observations with the same counts");
  });

  it("fails on swapped files, named by the merged shape's control-level rule", async () => {
    const err = await failure(split(kang("perturbed.h5ad"), kang("control.h5ad")));
    expect(err.code).toBe("condition_control_ambiguous");
    expect(err.message).toMatch(/control file is labelled "stim".*perturbed file "ctrl".*look swapped/);
    expect(err.message).toContain('Upload the "ctrl" file as the control');
  });

  it("fails on a merged file uploaded as one arm", async () => {
    const err = await failure(split(join(KANG_DIR, "kang2018_ifnb_cd14mono.h5ad"), kang("perturbed.h5ad")));
    expect(err.code).toBe("condition_control_ambiguous");
    expect(err.message).toMatch(/control file holds 2 levels .*"ctrl", "stim".*looks like a merged dataset/);
  });

  it("fails when both files carry the same single level on different cells", async () => {
    const other = splitArm("ctrl", [12, 12]);
    const err = await failure(
      split(
        await file(splitArm("ctrl", [12, 12])),
        await file({ ...other, obsNames: other.obsNames!.map((name) => `other-${name}`) }),
      ),
    );
    expect(err.code).toBe("condition_control_ambiguous");
    expect(err.message).toContain('Both files are labelled "ctrl" in the condition column "condition"');
  });

  it("warns, not fails, when the labels only half fit", async () => {
    const timeCourse = await split(
      await file(splitArm("0h", [12, 12])),
      await file(splitArm("6h", [12, 12])),
    );
    expect(timeCourse.metadata.warnings).toContain("arm_labels_unclear:control");
    expect(timeCourse.controlLevel).toBe("0h");
    const twoControls = await split(
      await file(splitArm("ctrl", [12, 12])),
      await file(splitArm("control", [12, 12])),
    );
    expect(twoControls.metadata.warnings).toContain("arm_labels_unclear:perturbed");
    const fitting = await split(
      await file(splitArm("ctrl", [12, 12])),
      await file(splitArm("IFNb", [12, 12])),
    );
    expect(fitting.metadata.warnings.filter((w) => w.startsWith("arm_labels_unclear"))).toEqual([]);
  });
});

describe("bulk or single-cell: the observations per sample decide", () => {
  const arms = ["ctrl", "ctrl", "ctrl", "stim", "stim", "stim"];
  const ids = ["c1", "c2", "c3", "s1", "s2", "s3"];

  it("reads one observation per sample as bulk despite a constant cell-type column (merged)", async () => {
    const [c] = await merged(await file(bulk(arms, { sample: ids, cell_type: Array(6).fill("monocyte") })));
    expect(c!.metadata.dataKind).toBe("bulk");
    expect(c!.pseudoBulk.samples.map((x) => x.nCells)).toEqual([1, 1, 1, 1, 1, 1]);
    expect(c!.summary.cell_type).toBe("monocyte");
  });

  it("reads one observation per sample as bulk despite a constant cell-type column (split)", async () => {
    const arm = (level: string, from: number) =>
      file(
        bulk(Array<string>(3).fill(level), {
          sample: ids.slice(from, from + 3),
          cell_type: Array(3).fill("monocyte"),
        }),
      );
    const s = await split(await arm("ctrl", 0), await arm("stim", 3));
    expect(s.metadata.dataKind).toBe("bulk");
    expect(s.replicated).toBe(true);
    expect(s.logfcMethod).toBe("glm");
    expect(s.metadata.warnings).not.toContain("pooled_fold_changes");
  });

  it("does not read cells as bulk samples: a per-cell id in the sample column of a file with cell types", async () => {
    const cells = [...Array<string>(60).fill("ctrl"), ...Array<string>(60).fill("stim")];
    const err = await failure(
      merged(
        await file(
          bulk(cells, {
            sample: cells.map((_, i) => `cell-${i}`),
            cell_type: Array<string>(120).fill("monocyte"),
          }),
        ),
      ),
    );
    expect(err.code).toBe("missing_sample_column");
    expect(err.message).toContain('The sample column "sample" gives each of the 60 observations');
    expect(err.message).toContain("look like cell ids");
  });

  it("names a bulk sample column that repeats ids within a condition, and the columns that would do", async () => {
    const replicate = ["1", "2", "1", "2", "1", "2"];
    const err = await failure(merged(await file(bulk(arms, { replicate }))));
    expect(err.code).toBe("missing_sample_column");
    expect(err.message).toContain('The sample column "replicate" repeats ids within the condition "ctrl"');
    expect(err.message).toContain("this looks like bulk data");
    expect(err.message).toContain("donor_column=replicate");
    expect(err.message).not.toContain("single-cell (samples have several");
    const withIds = await failure(
      merged(await file(bulk(arms, { replicate, library: ids, depth: [1.5, 2, 3, 4, 5, 6] }))),
    );
    expect(withIds.message).toContain("`library` has one value per observation: set sample_column=library");
    expect(withIds.message).not.toContain("depth");
  });
});

describe("split uploads without a sample column", () => {
  /** One arm of 24 cells, its sample column replaced by `donor`. */
  const withDonorOnly = (level: string, donor: string[]) => {
    const spec = splitArm(level, [12, 12]);
    const { sample: _s, ...obs } = spec.obs;
    return file({ ...spec, obs: { ...obs, donor } });
  };
  const twoDonors = Array.from({ length: 24 }, (_, i) => (i < 12 ? "d1" : "d2"));

  it("fail as a merged file does when the donor column names samples", async () => {
    const err = await failure(
      split(await withDonorOnly("ctrl", twoDonors), await withDonorOnly("stim", twoDonors)),
    );
    expect(err.code).toBe("missing_sample_column");
    expect(err.message).toContain("The control file is single-cell (it has a cell-type column)");
    expect(err.message).toContain("set sample_column=donor");
    const named = await split(
      await withDonorOnly("ctrl", twoDonors),
      await withDonorOnly("stim", twoDonors),
      {
        sample_column: "donor",
      },
    );
    expect(named.logfcMethod).toBe("glm");
    expect(named.design).toEqual({ paired: true, donors: ["d1", "d2"] });
  });

  it("pool without a word about donors when the donor column names one donor per file", async () => {
    const oneDonor = Array<string>(24).fill("d1");
    const s = await split(await withDonorOnly("ctrl", oneDonor), await withDonorOnly("stim", oneDonor));
    expect(s.logfcMethod).toBe("pooled_cpm");
    expect(s.metadata.warnings).toContain("no_sample_column:control");
    expect(s.metadata.warnings).not.toContain("donor_not_paired");
  });
});

describe("merged uploads: what the condition and sample ids say about the design", () => {
  it("warns that a design paired on sample ids shared by both arms was read as paired", async () => {
    const arms = ["ctrl", "ctrl", "ctrl", "stim", "stim", "stim"];
    const [numbered] = await merged(await file(bulk(arms, { replicate: ["1", "2", "3", "1", "2", "3"] })));
    expect(numbered!.design).toEqual({ paired: true, donors: ["1", "2", "3"] });
    expect(numbered!.metadata.warnings).toContain("paired_by_sample_ids");
    const [unique] = await merged(await file(bulk(arms, { sample: ["c1", "c2", "c3", "s1", "s2", "s3"] })));
    expect(unique!.design.paired).toBe(false);
    expect(unique!.metadata.warnings).toEqual([]);
    const [byDonor] = await merged(await file(bulk(arms, { donor: ["1", "2", "3", "1", "2", "3"] })));
    expect(byDonor!.design.paired).toBe(true);
    expect(byDonor!.metadata.warnings).toEqual([]);
  });

  it("points a one-level condition column to the obs columns of two levels, not to control_level", async () => {
    const spec = singleCell([
      [12, 12],
      [12, 12],
    ]);
    const stim = spec.obs.condition!;
    const err = await failure(
      merged(
        await file({
          ...spec,
          obs: {
            ...spec.obs,
            condition: Array(48).fill("IFN-beta 6h experiment"),
            stim,
            batch: Array(48).fill("b1"),
          },
        }),
      ),
    );
    expect(err.code).toBe("condition_control_ambiguous");
    expect(err.message).toContain(
      'The condition column "condition" has one level only ("IFN-beta 6h experiment")',
    );
    expect(err.message).toContain("`stim` has 2 values");
    expect(err.message).toContain("set condition_column=stim");
    expect(err.message).not.toContain("control_level=IFN");
    expect(err.message).not.toContain("`sample`");
  });
});
