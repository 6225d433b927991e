import { describe, expect, it } from "vitest";
import { genesMatching, volcanoSummary } from "./volcano-genes.ts";
import type { DegPoint } from "./Volcano.tsx";

const pt = (gene: string, log2fc: number, p: number, isDeg = true): DegPoint => ({ gene, log2fc, p, isDeg });
const POINTS = [
  pt("ACTB", 0.1, 0.8, false),
  pt("IRF1", 3.4, 1e-40),
  pt("GBP1", 5.2, 1e-60),
  pt("IRF9", 1.1, 1e-5),
  pt("CD14", -2.0, 1e-12),
  pt("SIRF2", 1.5, 1e-30),
  pt("STAT1", 2.1, 1e-40),
];

describe("the volcano plot in words and as a list", () => {
  it("says how many genes and DEGs it shows, up and down, and the most significant", () => {
    expect(volcanoSummary(POINTS)).toBe(
      "Volcano plot of 7 genes of the DE table: 6 DEGs, 5 up and 1 down; most significant: GBP1, IRF1, STAT1.",
    );
    expect(volcanoSummary([])).toBe("Volcano plot of 0 genes of the DE table: 0 DEGs, 0 up and 0 down.");
  });

  it("lists the most significant genes first when nothing is searched", () => {
    expect(genesMatching(POINTS, "", 4).map((d) => d.gene)).toEqual(["GBP1", "IRF1", "STAT1", "SIRF2"]);
  });

  it("puts the exact name first, then names that start with the search, then those that contain it", () => {
    expect(genesMatching(POINTS, "irf").map((d) => d.gene)).toEqual(["IRF1", "IRF9", "SIRF2"]);
    expect(genesMatching(POINTS, " irf9 ").map((d) => d.gene)).toEqual(["IRF9"]);
    expect(genesMatching(POINTS, "CD14").map((d) => d.gene)).toEqual(["CD14"]);
    expect(genesMatching(POINTS, "NOPE")).toEqual([]);
    expect(genesMatching(POINTS, "i", 2).map((d) => d.gene)).toEqual(["IRF1", "IRF9"]);
  });
});
