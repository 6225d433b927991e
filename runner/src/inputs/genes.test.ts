import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { JobFailure } from "@causeway/contract";
import { HGNC_DIR } from "../../../test/shared-data.ts";
import { writeTestH5ad, type TestH5ad } from "../../test/fixtures/anndata/write-test-h5ad.ts";
import { readAnnData } from "../anndata/index.ts";
import { GeneLookup, SymbolTable } from "../symbols/index.ts";
import { collectWarnings } from "../jobs/job-warnings.ts";
import type { Contrast } from "../jobs/contrast.ts";
import { checkMappedShare, mapGenes, normalizeDegs } from "./genes.ts";
import { prepareMergedDataset } from "./prepare-merged.ts";

let symbols: SymbolTable;
let dir: string;
beforeAll(async () => {
  symbols = await SymbolTable.load(HGNC_DIR);
  dir = mkdtempSync(join(tmpdir(), "causeway-genes-"));
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** A merged single-cell file of 2 × 2 samples of 12 cells over `varNames`, with `var` columns. */
async function h5ad(name: string, varNames: string[], varColumns: TestH5ad["var"] = {}): Promise<string> {
  const X = Array.from({ length: 48 }, (_, c) => varNames.map((_, g) => 1 + ((c * 7 + g * 3) % 11)));
  const arm = (c: number) => (c < 24 ? "ctrl" : "IFNb");
  const path = join(dir, `${name}.h5ad`);
  await writeTestH5ad(path, {
    X,
    obs: {
      condition: X.map((_, c) => arm(c)),
      sample: X.map((_, c) => `${arm(c)}${Math.floor(c / 12) % 2}`),
      cell_type: X.map(() => "monocyte"),
    },
    varNames,
    var: varColumns,
  });
  return path;
}

describe("a DEG list with identifiers that name several genes", () => {
  // ENSG00000099977 is DDT and DDTL; 10q23del is an alias of BMPR1A and of PTEN.
  const LIST = ["STAT1", "ENSG00000099977", "10q23del", "NOT_A_GENE_XYZ", "10Q23DEL"];

  it("names them as ambiguous, apart from the entries that are not genes", () => {
    const degs = normalizeDegs(LIST, symbols);
    expect(degs.symbols).toEqual(["STAT1"]);
    expect(degs.unresolved).toEqual(["NOT_A_GENE_XYZ"]);
    expect(degs.ambiguous).toEqual([
      { input: "ENSG00000099977", symbols: ["DDT", "DDTL"] },
      { input: "10q23del", symbols: ["BMPR1A", "PTEN"] },
    ]);
    expect(degs.nDegs).toBe(4);
  });

  it("reports them in the job's warnings and in the gene check, with the genes they name", () => {
    const degs = normalizeDegs(LIST, symbols);
    const contrast = {
      prefix: "",
      summary: { n_degs: degs.nDegs },
      metadata: { unresolved_degs: degs.unresolved, ambiguous_degs: degs.ambiguous },
    } as unknown as Contrast;
    const warnings = collectWarnings({
      contrasts: [contrast],
      scores: [],
      species: "human",
      orthologues: null,
      suppliedDegs: LIST,
    });
    expect(warnings.find((w) => w.code === "ambiguous_degs")?.message).toBe(
      "2 DEG entries name more than one gene and were left out (ENSG00000099977: DDT or DDTL, 10q23del: BMPR1A or PTEN); list the gene meant by its symbol.",
    );
    expect(warnings.find((w) => w.code === "unresolved_degs")?.message).toMatch(/^1 of 4 DEG entries/);

    const lookup = new GeneLookup(symbols, null, new Set(["STAT1"]));
    const checked = lookup.resolveAll(["ENSG00000099977", "STAT1|PROTEIN"], "human").genes;
    expect(checked[0]).toEqual({
      input: "ENSG00000099977",
      symbol: null,
      in_model: false,
      ambiguous: ["DDT", "DDTL"],
    });
    expect(checked[1]).toMatchObject({ symbol: null, suggestion: "STAT1" });
    expect(checked[1]!.ambiguous).toBeUndefined();
  });
});

describe("Ensembl ids as var_names", () => {
  // The ids of MCL1, APOBEC3A and U2AF1 are each listed under a second gene (an antisense
  // ncRNA, NCBI's hybrid APOBEC3A_B, a provisional LOC record); ENSG00000117289 was TXNIP's id
  // in hg19-era annotations and is not in the snapshot.
  const IDS = [
    "ENSG00000115415",
    "ENSG00000143384",
    "ENSG00000128383",
    "ENSG00000160201",
    "ENSG00000117289.7",
  ];

  it("resolves ids listed under several genes to the gene they stand for", async () => {
    const ad = await readAnnData(await h5ad("ensembl", IDS));
    const mapping = mapGenes(ad.var, symbols);
    expect(mapping.source).toBe("var_names (Ensembl ids)");
    expect(mapping.symbols).toEqual(["STAT1", "MCL1", "APOBEC3A", "U2AF1", null]);
    expect(mapping.identifiers[4]).toBe("ENSG00000117289.7");
  });

  it("counts ids that resolve to nothing, for the unresolved-genes warning", async () => {
    const [c] = await prepareMergedDataset(await h5ad("ensembl-job", IDS), { symbols, maxObsPerArm: 1000 });
    expect(c!.metadata.genes).toMatchObject({
      nInput: 5,
      nResolved: 4,
      nUnresolved: 1,
      unresolvedExamples: ["ENSG00000117289.7"],
    });
  });
});

describe("mouse data read as human", () => {
  const MOUSE_IDS = Array.from({ length: 12 }, (_, i) => `ENSMUSG${String(20_000 + i).padStart(11, "0")}`);

  it("suspects mouse data indexed by mouse Ensembl ids, without an orthologue table", async () => {
    const mouseSymbols = [
      "Stat1",
      "Irf1",
      "Cxcl10",
      "Isg15",
      "Rsad2",
      "Gbp2",
      "Actb",
      "Jak1",
      "Tyk2",
      "Irf9",
      "Stat2",
      "Mx1",
    ];
    const path = await h5ad("mouse-ensembl", MOUSE_IDS, { gene_symbols: mouseSymbols });
    const [c] = await prepareMergedDataset(path, { symbols, maxObsPerArm: 1000 });
    // The symbol column spells mouse genes like human ones case-insensitively, so they resolve…
    expect(c!.metadata.genes.nResolved).toBe(12);
    // …and only the ids tell the species.
    const warnings = collectWarnings({
      contrasts: [{ prefix: "", prepared: c, metadata: {} } as unknown as Contrast],
      scores: [],
      species: "human",
      orthologues: null,
      suppliedDegs: null,
    });
    expect(warnings.map((w) => w.code)).toContain("species_mismatch_suspected");
  });

  it("says unmapped mouse Ensembl ids are mouse genes", () => {
    const mapping = {
      symbols: MOUSE_IDS.map(() => null),
      identifiers: MOUSE_IDS,
      source: "var_names (Ensembl ids)",
    };
    let err: unknown;
    try {
      checkMappedShare(mapping, new Float64Array(MOUSE_IDS.length).fill(1), "dataset");
    } catch (e) {
      err = e;
    }
    expect(err).toBeInstanceOf(JobFailure);
    expect((err as JobFailure).code).toBe("gene_symbols_unmapped");
    expect((err as JobFailure).message).toContain("most unmapped identifiers are mouse Ensembl ids");
    expect((err as JobFailure).message).toContain("species=mouse");
  });
});
