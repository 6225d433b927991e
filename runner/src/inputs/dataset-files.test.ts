import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { JobFailure } from "@causeway/contract";
import { HGNC_DIR, KANG_DIR } from "../../../test/shared-data.ts";
import { writeKangRenamed } from "../../test/fixtures/anndata/kang-renamed.ts";
import { writeTestH5ad } from "../../test/fixtures/anndata/write-test-h5ad.ts";
import { readAnnData, readLimits } from "../anndata/index.ts";
import { OrthologueTable, ORTHOLOGUE_FILE, SymbolTable, speciesResolver } from "../symbols/index.ts";
import { columnValues } from "./columns.ts";
import { inspectDataset, subsampleKeepingSamples, writeCellTypeInputs } from "./dataset-files.ts";
import { prepareMergedDataset } from "./prepare-merged.ts";
import { readFile } from "node:fs/promises";

const FIELDS = {
  condition_column: "arm",
  control_level: "unstim",
  sample_column: "individual",
  cell_type_column: "annot",
  cell_type: "CD14+ Monocytes",
};

let dir: string;
let renamed: string;
let mouse: string;
let symbols: SymbolTable;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), "causeway-kang-renamed-"));
  renamed = join(dir, "kang-renamed.h5ad");
  mouse = join(dir, "kang-mouse.h5ad");
  await writeKangRenamed(join(KANG_DIR, "kang2018_ifnb_pbmc.h5ad"), renamed);
  await writeKangRenamed(join(KANG_DIR, "kang2018_ifnb_pbmc.h5ad"), mouse, { mouse: { hgncDir: HGNC_DIR } });
  symbols = await SymbolTable.load(HGNC_DIR);
}, 120_000);
afterAll(async () => rm(dir, { recursive: true, force: true }));

async function failure(p: Promise<unknown>): Promise<JobFailure> {
  const err = await p.then(
    () => null,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(JobFailure);
  return err as JobFailure;
}

describe("a merged file with its own column names", () => {
  it("is analysed for one cell type with the fields set", async () => {
    const [c] = await prepareMergedDataset(renamed, { symbols, maxObsPerArm: 1000, dataset: FIELDS });
    expect(c!.summary.cell_type).toBe("CD14+ Monocytes");
    expect(c!.controlLevel).toBe("unstim");
    expect(c!.perturbedLevel).toBe("IFNb");
    expect(c!.pseudoBulk.samples.map((s) => s.id).sort()).toEqual([
      "101|control",
      "101|perturbed",
      "107|control",
      "107|perturbed",
    ]);
    expect(c!.summary.n_cells).toBe(400);
    expect(c!.metadata.droppedObservations.otherCellType).toBe(1156);
  });

  it("fails without them, naming the candidate columns and the field to set", async () => {
    const err = await failure(prepareMergedDataset(renamed, { symbols, maxObsPerArm: 1000 }));
    expect(err.code).toBe("missing_condition_column");
    expect(err.message).toContain("`arm` has 2 values");
    expect(err.message).toContain("set condition_column=arm");
    expect(err.message).toMatch(/`individual`|`annot`/);
  });

  it("names the sample and cell-type candidates once the condition is known", async () => {
    const noSample = await failure(
      prepareMergedDataset(renamed, { symbols, maxObsPerArm: 1000, dataset: { condition_column: "arm" } }),
    );
    expect(noSample.code).toBe("missing_sample_column");
    expect(noSample.message).toContain("`individual` has 2 values, 2 per arm: set sample_column=individual");
    const noCellType = await failure(
      prepareMergedDataset(renamed, {
        symbols,
        maxObsPerArm: 1000,
        dataset: { condition_column: "arm", sample_column: "individual" },
      }),
    );
    expect(noCellType.code).toBe("missing_cell_type_column");
    expect(noCellType.message).toContain("set cell_type_column=annot");
  });

  it("refuses a named column or level the file lacks, listing what it has", async () => {
    const col = await failure(
      prepareMergedDataset(renamed, {
        symbols,
        maxObsPerArm: 1000,
        dataset: { ...FIELDS, sample_column: "replicate_id" },
      }),
    );
    expect(col.message).toContain('sample_column=replicate_id, but obs has no column "replicate_id"');
    expect(col.message).toContain("`individual`");
    const level = await failure(
      prepareMergedDataset(renamed, {
        symbols,
        maxObsPerArm: 1000,
        dataset: { ...FIELDS, control_level: "0h" },
      }),
    );
    expect(level.code).toBe("condition_control_ambiguous");
    expect(level.message).toContain('"IFNb", "unstim"');
    const ct = await failure(
      prepareMergedDataset(renamed, {
        symbols,
        maxObsPerArm: 1000,
        dataset: { ...FIELDS, cell_type: "Monocytes" },
      }),
    );
    expect(ct.message).toContain('"CD14+ Monocytes"');
  });

  it("reads mouse symbols through the orthologue table with species=mouse", async () => {
    const orthologues = OrthologueTable.fromBuffer(await readFile(join(HGNC_DIR, ORTHOLOGUE_FILE)));
    const [c] = await prepareMergedDataset(mouse, {
      symbols: speciesResolver(symbols, orthologues, "mouse"),
      maxObsPerArm: 1000,
      dataset: FIELDS,
    });
    expect(c!.pseudoBulk.genes).toContain("STAT1");
    expect(c!.pseudoBulk.genes.length).toBeGreaterThan(1000);
  });
});

describe("causeway prepare's files", () => {
  it("inspects the file: columns, roles, counts, observations per arm and cell type", async () => {
    const report = await inspectDataset(renamed, {
      condition_column: "arm",
      sample_column: "individual",
      cell_type_column: "annot",
    });
    expect(report.nObs).toBe(1556);
    expect(report.roles).toEqual({
      condition: "arm",
      sample: "individual",
      // `individual` is a donor name too, but taken as the sample column it is not also the donor, and it says so.
      donor: null,
      cellType: "annot",
    });
    expect(report.notes).toEqual([expect.stringContaining("`individual` is the sample column")]);
    expect(report.shape).toBe("merged");
    expect(report.counts).toEqual({ matrix: "X", rejected: [] });
    expect(report.control).toBe("unstim");
    expect(report.perCellType["CD14+ Monocytes"]).toEqual({ unstim: 200, IFNb: 200 });
    expect(report.problems).toEqual(["5 cell types: choose one with cell_type"]);
  });

  it("gives one arm of a split pair the split advice, not the merged file's control-level advice", async () => {
    for (const arm of ["control", "perturbed"]) {
      const path = join(KANG_DIR, "split_cd14mono", `${arm}.h5ad`);
      const report = await inspectDataset(path);
      expect(report.shape).toBe("split_arm");
      expect(report.problems).toHaveLength(1);
      expect(report.problems[0]).toMatch(/^one arm only .*--control or --perturbed/);
      expect(report.problems.join(" ")).not.toMatch(/needed as well|names a control/);
      const err = await failure(
        writeCellTypeInputs(path, { fields: {}, maxObs: 1000, seed: 1, outDir: dir }),
      );
      expect(err.message).toContain("one file of a split pair already");
    }
    expect((await inspectDataset(renamed, {})).problems[0]).toMatch(
      /as one arm of a split pair .* it needs none/,
    );
  });

  it("writes one cell type's pair, subsampled under a cap with every sample kept", async () => {
    const out = join(dir, "prepared");
    const written = await writeCellTypeInputs(renamed, { fields: FIELDS, maxObs: 150, seed: 1, outDir: out });
    expect(written.arms.map((a) => [a.level, a.nBefore, a.nAfter])).toEqual([
      ["unstim", 200, 150],
      ["IFNb", 200, 150],
    ]);
    for (const a of written.arms) expect(Object.keys(a.samples).sort()).toEqual(["101", "107"]);
    const control = await readAnnData(written.control, readLimits(1000));
    expect(control.nObs).toBe(150);
    expect(levelsOfColumn(control.obs, "condition")).toEqual(["unstim"]);
    expect(levelsOfColumn(control.obs, "cell_type")).toEqual(["CD14+ Monocytes"]);
    // The merged output is accepted by the job's checks as it is, no fields needed, and says it was subsampled.
    const [c] = await prepareMergedDataset(written.dataset, { symbols, maxObsPerArm: 1000 });
    expect(c!.pseudoBulk.samples).toHaveLength(4);
    expect(c!.metadata.subsampled).toEqual([
      { arm: "unstim", from: 200, to: 150 },
      { arm: "IFNb", from: 200, to: 150 },
    ]);
    // Same seed, same cells.
    const again = await writeCellTypeInputs(renamed, {
      fields: FIELDS,
      maxObs: 150,
      seed: 1,
      outDir: join(dir, "again"),
    });
    const a2 = await readAnnData(again.control, readLimits(1000));
    expect(a2.obs.index).toEqual(control.obs.index);
  });

  it("reports the layer that holds the counts, and writes raw.X with raw's own genes", async () => {
    const genes = ["ISG15", "MX1", "STAT1", "ACTB"];
    const more = ["B2M", "FTL"];
    const counts = (n: number) =>
      Array.from({ length: 24 }, (_, c) => Array.from({ length: n }, (_, g) => 1 + ((c + 3 * g) % 7)));
    const lognorm = (m: number[][]) => m.map((r) => r.map((v) => Math.log1p(v) + 0.5));
    const obs = {
      condition: Array.from({ length: 24 }, (_, c) => (c < 12 ? "ctrl" : "stim")),
      sample: Array.from({ length: 24 }, (_, c) => `s${Math.floor(c / 6)}`),
    };
    const umis = join(dir, "umis.h5ad");
    await writeTestH5ad(umis, {
      X: lognorm(counts(4)),
      xDtype: "<f8",
      obs,
      varNames: genes,
      layers: { UMIs: counts(4) },
    });
    const report = await inspectDataset(umis);
    // A layer named as counts is tried before X.
    expect(report.counts).toEqual({ matrix: "layers/UMIs", rejected: [] });

    const rawHvg = join(dir, "raw-hvg.h5ad");
    const raw = counts(6);
    await writeTestH5ad(rawHvg, {
      X: lognorm(raw.map((r) => r.slice(2))),
      xDtype: "<f8",
      obs,
      varNames: genes,
      raw: { X: raw, varNames: [...more, ...genes] },
    });
    const written = await writeCellTypeInputs(rawHvg, {
      fields: {},
      maxObs: 1000,
      seed: 1,
      outDir: join(dir, "raw-hvg"),
    });
    const control = await readAnnData(written.control, readLimits(1000));
    expect(control.var.index).toEqual([...more, ...genes]);
    expect(control.matrices.get("X")!.nCols).toBe(6);
  });

  it("subsamples in proportion, at least one observation per sample", () => {
    const sampleOf = [...Array(90).fill("a"), ...Array(9).fill("b"), "c"] as string[];
    const rows = sampleOf.map((_, i) => i);
    const kept = subsampleKeepingSamples(rows, sampleOf, 20, 7);
    expect(kept).toHaveLength(20);
    const per = (s: string) => kept.filter((i) => sampleOf[i] === s).length;
    expect([per("a"), per("b"), per("c")]).toEqual([18, 1, 1]);
  });
});

function levelsOfColumn(frame: Parameters<typeof columnValues>[0], name: string): string[] {
  return [...new Set(columnValues(frame, name))].filter((v): v is string => v !== null).sort();
}
