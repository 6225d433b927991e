import { readFile } from "node:fs/promises";
import { join } from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { HGNC_DIR } from "../../../test/shared-data.ts";
import { ORTHOLOGUE_FILE, OrthologueTable } from "./orthologues.ts";
import { looksLikeMouse, NoOrthologueTable, speciesResolver } from "./species.ts";
import { SymbolTable } from "./symbol-table.ts";

describe("species", () => {
  let symbols: SymbolTable;
  let orthologues: OrthologueTable;
  beforeAll(async () => {
    symbols = await SymbolTable.load(HGNC_DIR);
    orthologues = OrthologueTable.fromBuffer(await readFile(join(HGNC_DIR, ORTHOLOGUE_FILE)));
  });

  it("maps mouse symbols to human ones through one-to-one orthologues only", () => {
    const mouse = speciesResolver(symbols, orthologues, "mouse");
    expect(mouse.resolve("Stat1")).toBe("STAT1");
    expect(mouse.resolve("stat1")).toBe("STAT1");
    expect(mouse.resolve("Cxcl10")).toBe("CXCL10");
    // Not a mouse gene of the table (H2 genes have no one-to-one human orthologue).
    expect(mouse.resolve("H2-K1")).toBeNull();
    expect(mouse.resolveEnsembl("ENSG00000115415")).toBeNull();
    expect(orthologues.size).toBeGreaterThan(16_000);
  });

  it("human is the HGNC table itself; mouse without a table is refused", () => {
    expect(speciesResolver(symbols, null, "human")).toBe(symbols);
    expect(() => speciesResolver(symbols, null, "mouse")).toThrow(NoOrthologueTable);
  });

  it("suspects mouse data read as human when most identifiers are spelled the mouse way", () => {
    const mouseIds = [
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
      "Gm12345",
    ];
    const humanIds = mouseIds.map((s) => s.toUpperCase());
    expect(looksLikeMouse(mouseIds, orthologues)).toBe(true);
    expect(looksLikeMouse(humanIds, orthologues)).toBe(false);
    expect(looksLikeMouse(mouseIds.slice(0, 5), orthologues)).toBe(false);
    expect(looksLikeMouse(mouseIds, null)).toBe(false);
  });

  it("takes mouse Ensembl ids as mouse evidence, with or without an orthologue table", () => {
    const ids = Array.from({ length: 20 }, (_, i) => `ENSMUSG${String(i + 1).padStart(11, "0")}`);
    expect(looksLikeMouse(ids, null)).toBe(true);
    expect(
      looksLikeMouse(
        ids.map((id) => `${id}.3`),
        orthologues,
      ),
    ).toBe(true);
    const human = ids.map((id) => id.replace("ENSMUSG", "ENSG"));
    expect(looksLikeMouse(human, null)).toBe(false);
    // Human Ensembl ids weigh against mouse ones; other species' ids count for neither.
    expect(looksLikeMouse([...ids.slice(0, 10), ...human.slice(0, 5)], null)).toBe(false);
    expect(looksLikeMouse([...ids.slice(0, 10), "ENSRNOG00000000001", "ENSDARG00000000001"], null)).toBe(
      true,
    );
  });
});
