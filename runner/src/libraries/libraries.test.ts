import { mkdir, mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { gzipSync } from "node:zlib";
import { afterAll, describe, expect, it } from "vitest";
import { SymbolTable } from "../symbols/index.ts";
import { toySymbols } from "../../test/fixtures/model/toy.ts";
import {
  GmtFormatError,
  layerFilesOfDir,
  layerKindOf,
  loadLayersFromDir,
  parseGmt,
  parsePairs,
  setsAsSymbols,
} from "./index.ts";

const symbols = toySymbols(["OLDX"]);

describe("GMT evidence layers", () => {
  it("reads the regulator before the first underscore, normalizes genes and keeps several sets per regulator", () => {
    const text = [
      "B_HELA_HG19\t\tx\ty\tnot-a-gene",
      "B_K562_HG19\t\tz",
      "C\tdesc\ty\tz\ty",
      "unknown_1\t\tx",
    ].join("\n");
    const layer = parseGmt(Buffer.from(text), "toy", "tf_binding", symbols);
    expect(layer).toMatchObject({ name: "toy", kind: "tf_binding" });
    expect([...layer.sets.keys()]).toEqual(["B", "C"]);
    expect(setsAsSymbols(layer).get("B")).toEqual([["x", "y"], ["z"]]);
    expect(setsAsSymbols(layer).get("C")).toEqual([["y", "z"]]);
  });

  it("reads gzipped files the same as plain ones", () => {
    const text = "B_1\t\tx\ty\n";
    const plain = parseGmt(Buffer.from(text), "a", "kinase", symbols);
    const gz = parseGmt(gzipSync(text), "a", "kinase", symbols);
    expect(setsAsSymbols(gz)).toEqual(setsAsSymbols(plain));
  });

  it("refuses a file without any set line", () => {
    expect(() => parseGmt(Buffer.from("just text\nno tabs\n"), "bad", "kinase", symbols)).toThrow(
      GmtFormatError,
    );
  });

  it("reads a layer's kind from its name or folder (ChEA3/KEA3 layout) and refuses a guess", () => {
    expect(layerKindOf("chea3/encode_chipseq.gmt.gz")).toBe("tf_binding");
    expect(layerKindOf("chea3/archs4_coexpression.gmt.gz")).toBe("tf_coexpression");
    expect(layerKindOf("kea3/STRING.gmt.gz")).toBe("kinase");
    expect(layerKindOf("kinases/PhosDAll.gmt")).toBe("kinase");
    expect(layerKindOf("misc/things.gmt")).toBeNull();
    expect(layerKindOf("ppi/huri.tsv.gz")).toBe("ppi");
    expect(layerKindOf("ppi_binary/pairs.txt")).toBe("ppi");
    // A table outside a ppi folder is no layer; a library in one is read by its own name.
    expect(layerKindOf("chea3/notes.tsv")).toBeNull();
    expect(layerKindOf("kea3/ChengPPI.gmt.gz")).toBe("kinase");
  });

  const dirs: string[] = [];
  afterAll(() => Promise.all(dirs.map((d) => rm(d, { recursive: true, force: true }))));

  it("loads every library of a directory in path order, and fails on a file of unknown kind", async () => {
    const dir = await mkdtemp(join(tmpdir(), "causeway-libs-"));
    dirs.push(dir);
    await mkdir(join(dir, "chea3"));
    await mkdir(join(dir, "kea3"));
    await writeFile(join(dir, "chea3", "remap_chipseq.gmt.gz"), gzipSync("B_1\t\tx\ty\n"));
    await writeFile(join(dir, "kea3", "PhosDAll.gmt"), "A_PhosD\t\tB\tC\n");
    await writeFile(join(dir, "README.md"), "not a library");
    const layers = await loadLayersFromDir(dir, symbols);
    expect(layers.map((l) => [l.name, l.kind])).toEqual([
      ["chea3/remap_chipseq", "tf_binding"],
      ["kea3/PhosDAll", "kinase"],
    ]);
    await mkdir(join(dir, "ppi"));
    await writeFile(join(dir, "ppi", "huri.tsv.gz"), gzipSync("symbol_a\tsymbol_b\nA\tB\n"));
    const withPpi = await loadLayersFromDir(dir, symbols);
    expect(withPpi.map((l) => [l.name, l.kind])).toContainEqual(["ppi/huri", "ppi"]);
    expect(setsAsSymbols(withPpi.find((l) => l.kind === "ppi")!).get("A")).toEqual([["B"]]);
    await writeFile(join(dir, "other.gmt"), "B_1\t\tx\n");
    await expect(layerFilesOfDir(dir)).rejects.toThrow(/kind/);
  });
});

describe("protein–protein interaction layers", () => {
  const withEnsembl = SymbolTable.fromBuffers({
    geneSymbols: Buffer.from("symbol\nA\nB\nC\nD\n"),
    aliasToSymbol: Buffer.from("alias\tsymbol\nOLDC\tC\n"),
    ensemblToSymbol: Buffer.from("ensembl_id\tsymbol\nENSG00000000001\tD\n"),
  });

  it("reads undirected pairs both ways, through aliases and Ensembl ids, without self-pairs, repeats or a header", () => {
    const text = [
      "symbol_a\tsymbol_b",
      "A\tB",
      "B\tA",
      "A\tOLDC",
      "ENSG00000000001.3\tA",
      "B\tB",
      "A\tnot-a-gene",
      "",
    ].join("\n");
    const layer = parsePairs(gzipSync(text), "huri", withEnsembl);
    expect(layer).toMatchObject({ name: "huri", kind: "ppi" });
    const sets = setsAsSymbols(layer);
    expect([...sets.keys()].sort()).toEqual(["A", "B", "C", "D"]);
    expect(sets.get("A")!.map((set) => [...set].sort())).toEqual([["B", "C", "D"]]);
    expect(sets.get("B")).toEqual([["A"]]);
    expect(sets.get("D")).toEqual([["A"]]);
  });

  it("refuses a file without a line of two tab-separated genes", () => {
    expect(() => parsePairs(Buffer.from("A B\nno tabs here\n"), "bad", withEnsembl)).toThrow(GmtFormatError);
  });
});
