import { beforeAll, describe, expect, it } from "vitest";
import { HGNC_DIR } from "../../../test/shared-data.ts";
import { GeneLookup, SymbolTable } from "../symbols/index.ts";
import { collectWarnings } from "../jobs/job-warnings.ts";
import type { Contrast } from "../jobs/contrast.ts";
import { normalizeDegs } from "./genes.ts";

describe("a DEG list with identifiers that name several genes", () => {
  let symbols: SymbolTable;
  beforeAll(async () => {
    symbols = await SymbolTable.load(HGNC_DIR);
  });

  // ENSG00000004866 is ST7 and ST7-OT3; 10q23del is an alias of BMPR1A and of PTEN.
  const LIST = ["STAT1", "ENSG00000004866", "10q23del", "NOT_A_GENE_XYZ", "10Q23DEL"];

  it("names them as ambiguous, apart from the entries that are not genes", () => {
    const degs = normalizeDegs(LIST, symbols);
    expect(degs.symbols).toEqual(["STAT1"]);
    expect(degs.unresolved).toEqual(["NOT_A_GENE_XYZ"]);
    expect(degs.ambiguous).toEqual([
      { input: "ENSG00000004866", symbols: ["ST7", "ST7-OT3"] },
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
      "2 DEG entries name more than one gene and were left out (ENSG00000004866: ST7 or ST7-OT3, 10q23del: BMPR1A or PTEN); list the gene meant by its symbol.",
    );
    expect(warnings.find((w) => w.code === "unresolved_degs")?.message).toMatch(/^1 of 4 DEG entries/);

    const lookup = new GeneLookup(symbols, null, new Set(["STAT1"]));
    const checked = lookup.resolveAll(["ENSG00000004866", "STAT1|PROTEIN"], "human").genes;
    expect(checked[0]).toEqual({
      input: "ENSG00000004866",
      symbol: null,
      in_model: false,
      ambiguous: ["ST7", "ST7-OT3"],
    });
    expect(checked[1]).toMatchObject({ symbol: null, suggestion: "STAT1" });
    expect(checked[1]!.ambiguous).toBeUndefined();
  });
});
