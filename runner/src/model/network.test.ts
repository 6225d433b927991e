import { readFile } from "node:fs/promises";
import { gzipSync } from "node:zlib";
import { describe, expect, it } from "vitest";
import { HGNC_DIR, sharedData } from "../../../test/shared-data.ts";
import { SymbolTable } from "../symbols/index.ts";
import { toySymbols } from "../../test/fixtures/model/toy.ts";
import { NetworkFormatError, parseNetwork } from "./network.ts";
import { buildTransitionGraph, V1_WALK, walkMatrices } from "./transition.ts";

const HEADER = "source\ttarget\tsign\tedge_type\tresource\tevidence";
const symbols = toySymbols(["D", "STAT1"]);
const net = (...rows: string[]): string => [HEADER, ...rows].join("\n");

describe("parseNetwork build rules (model.md §6.1)", () => {
  it("drops protein self-loops and merges duplicates with sign 0 on disagreement", () => {
    const n = parseNetwork(
      net(
        "A|PROTEIN\tA|PROTEIN\t1\tsignaling\tX\t",
        "A|PROTEIN\tB|PROTEIN\t1\tsignaling\tX\t1|2",
        "A|PROTEIN\tB|PROTEIN\t-1\tsignaling\tY\t2|3",
        "B|PROTEIN\tx|RNA\t1\ttranscriptional\tX\t",
        "B|PROTEIN\tx|RNA\t1\ttranscriptional\tX\t",
      ),
      symbols,
    );
    expect(n.edges).toEqual([
      {
        source: "A|PROTEIN",
        target: "B|PROTEIN",
        sign: 0,
        edgeType: "signaling",
        resource: "X|Y",
        evidence: "1|2|3",
        weight: 2,
        rows: 2,
      },
      {
        source: "B|PROTEIN",
        target: "x|RNA",
        sign: 1,
        edgeType: "transcriptional",
        resource: "X",
        evidence: "",
        weight: 2,
        rows: 2,
      },
    ]);
    expect(n.nodeIds).toEqual(["A|PROTEIN", "B|PROTEIN", "x|RNA"]);
    expect(n.weightRule).toBe("uniform");
  });

  it("reads gzip input", () => {
    const n = parseNetwork(gzipSync(net("A|PROTEIN\tB|PROTEIN\t1\tsignaling\tX\t")), symbols);
    expect(n.edges).toHaveLength(1);
  });

  it("rejects ids that are not approved symbols, listing examples", () => {
    const bad = net(
      "A|PROTEIN\tNOPE1|PROTEIN\t1\tsignaling\tX\t",
      "NOPE2|PROTEIN\tx|RNA\t1\ttranscriptional\tX\t",
    );
    expect(() => parseNetwork(bad, symbols)).toThrow(NetworkFormatError);
    expect(() => parseNetwork(bad, symbols)).toThrow(/2 node symbols .*NOPE1; NOPE2/);
  });

  it.each([
    ["A|PROTEIN\tx|RNA\t1\tsignaling\tX\t", /signaling edge with a RNA target/],
    ["x|RNA\tA|PROTEIN\t1\tsignaling\tX\t", /source must be a PROTEIN/],
    ["A|PROTEIN\tB|PROTEIN\t2\tsignaling\tX\t", /sign "2"/],
    ["A|PROTEIN\tB|PROTEIN\t1\tbinding\tX\t", /unknown edge_type/],
    ["A\tB|PROTEIN\t1\tsignaling\tX\t", /SYMBOL\|PROTEIN/],
  ])("rejects malformed row %j", (row, message) => {
    expect(() => parseNetwork(net(row), symbols)).toThrow(message);
  });

  it("rejects a file without the required columns", () => {
    expect(() => parseNetwork("source\ttarget\nA|PROTEIN\tB|PROTEIN\n", symbols)).toThrow(
      /sign; edge_type; resource; evidence/,
    );
  });

  it("weights DoRothEA edges by confidence (§6.2) and splits mass by ρ (§6.3)", () => {
    const n = parseNetwork(
      net(
        "A|PROTEIN\tB|PROTEIN\t1\tsignaling\tOmniPath\t",
        "A|PROTEIN\tx|RNA\t1\ttranscriptional\tDoRothEA\tconfidence=A",
        "A|PROTEIN\ty|RNA\t1\ttranscriptional\tDoRothEA\tconfidence=B",
        "A|PROTEIN\tz|RNA\t1\ttranscriptional\tDoRothEA\tconfidence=C",
      ),
      symbols,
    );
    expect(n.weightRule).toBe("dorothea_confidence");
    expect(n.edges.map((e) => e.weight)).toEqual([1, 1, 0.75, 0.5]);
    const g = buildTransitionGraph(n, V1_WALK);
    // A has both kinds: ρ = 0.5 to RNA split 1 : 0.75 : 0.5, and 0.5 to its one protein edge.
    expect(Array.from(g.p.data)).toEqual([0.5, 0.5 / 2.25, (0.5 * 0.75) / 2.25, (0.5 * 0.5) / 2.25]);
    const { q, r } = walkMatrices(g, 0.5);
    expect(Array.from(q.data)).toEqual([0.25]);
    expect(r.data[0]).toBeCloseTo(0.25 / 2.25, 15);
  });

  it("reads a confidence column when present", () => {
    const text =
      "source\ttarget\tsign\tedge_type\tresource\tevidence\tconfidence\nA|PROTEIN\tx|RNA\t1\ttranscriptional\tD\t\tB\n";
    expect(parseNetwork(text, symbols).edges[0]!.weight).toBe(0.75);
  });
});

describe("parseNetwork on the shared interactome files", async () => {
  const hgnc = await SymbolTable.load(HGNC_DIR);

  it("default network: 145 sign-conflicting pairs merged into weight-2 edges", async () => {
    const n = parseNetwork(await readFile(sharedData("interactome", "default_interactome.tsv.gz")), hgnc);
    expect(n.weightRule).toBe("uniform");
    expect(n.edges).toHaveLength(60_343 - 145);
    const merged = n.edges.filter((e) => e.rows === 2);
    expect(merged).toHaveLength(145);
    expect(merged.every((e) => e.sign === 0 && e.weight === 2 && e.edgeType === "signaling")).toBe(true);
    expect(n.nodeIds.filter((id) => id.endsWith("|PROTEIN"))).toHaveLength(6232);
    expect(n.nodeIds.filter((id) => id.endsWith("|RNA"))).toHaveLength(6590);
  });

  it("DoRothEA variant: confidence weights A/B/C", async () => {
    const n = parseNetwork(
      await readFile(sharedData("interactome", "interactome_dorothea_abc.tsv.gz")),
      hgnc,
    );
    expect(n.weightRule).toBe("dorothea_confidence");
    const weights = new Set(n.edges.filter((e) => e.edgeType === "transcriptional").map((e) => e.weight));
    expect([...weights].sort()).toEqual([0.5, 0.75, 1]);
    expect(n.nodeIds.filter((id) => id.endsWith("|PROTEIN"))).toHaveLength(5782);
    expect(n.nodeIds.filter((id) => id.endsWith("|RNA"))).toHaveLength(5317);
  });
});
