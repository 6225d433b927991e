import { describe, expect, it } from "vitest";
import { preferredGene, type GeneCandidate } from "./preferred-gene.ts";

const gene = (symbol: string, type = "protein-coding"): GeneCandidate => ({ symbol, type });

describe("the gene an Ensembl id listed under several stands for", () => {
  it.each<[string, GeneCandidate[], number | null]>([
    ["the protein-coding gene beside an ncRNA", [gene("ADAMTSL4-AS1", "ncRNA"), gene("MCL1")], 1],
    ["an HGNC-style symbol beside a provisional LOC record", [gene("LOC102724594"), gene("U2AF1")], 1],
    ["an HGNC-style symbol beside an NCBI hybrid", [gene("APOBEC3A"), gene("APOBEC3A_B")], 0],
    ["a gene beside the readthrough named after it", [gene("TBCEL-TECTA"), gene("TECTA")], 1],
    [
      "the named ncRNA beside a provisional ncRNA",
      [gene("LOC101927480", "ncRNA"), gene("CRNDE", "ncRNA")],
      1,
    ],
    ["none of two protein-coding paralogues", [gene("DDT"), gene("DDTL")], null],
    ["none of two pseudogenes", [gene("LSP1P4", "pseudo"), gene("LSP1P5", "pseudo")], null],
    ["none of two provisional records", [gene("LOC1"), gene("LOC2")], null],
  ])("%s", (_what, candidates, expected) => {
    expect(preferredGene(candidates)).toBe(expected);
  });

  it("applies the approved-name test before the gene type", () => {
    // A provisional protein-coding record does not outrank a named antisense gene.
    expect(preferredGene([gene("KANSL1-AS1", "ncRNA"), gene("LOC107984142")])).toBe(0);
  });

  it("uses no gene type it does not have", () => {
    expect(preferredGene([gene("AAA", ""), gene("BBB", "")])).toBeNull();
    expect(preferredGene([gene("AAA", ""), gene("LOC5", "")])).toBe(0);
  });
});
