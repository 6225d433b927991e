import { mkdtemp, rm, writeFile, mkdir } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { gzipSync } from "node:zlib";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { FsObjectStore } from "../storage/index.ts";
import { TOY_NETWORK } from "../../test/fixtures/model/toy.ts";
import { loadGeneLookup, loadOrthologues } from "./gene-lookup-store.ts";
import { importModel } from "./model-import.ts";

describe("gene look-ups of a stored model version", () => {
  let dir: string;
  let store: FsObjectStore;

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), "causeway-lookup-"));
    const networkPath = join(dir, "toy.tsv");
    await writeFile(networkPath, TOY_NETWORK);
    store = new FsObjectStore(join(dir, "store"));
    for (const [version, orthologues] of [
      ["with", true],
      ["without", false],
    ] as const) {
      const hgncDir = join(dir, version);
      await mkdir(hgncDir);
      await writeFile(join(hgncDir, "gene_symbols.tsv.gz"), gzipSync("symbol\nA\nB\nC\nx\ny\nz\nQ\n"));
      await writeFile(join(hgncDir, "alias_to_symbol.tsv.gz"), gzipSync("alias\tsymbol\nOLDA\tA\n"));
      await writeFile(
        join(hgncDir, "ensembl_to_symbol.tsv.gz"),
        gzipSync("ensembl_id\tsymbol\nENSG00000000001\tB\n"),
      );
      if (orthologues)
        await writeFile(
          join(hgncDir, "mouse_human_orthologues.tsv.gz"),
          gzipSync("symbol\tsymbol_mouse\nA\tAa1\nQ\tQq\n"),
        );
      await importModel({ networkPath, hgncDir, version, store, threads: 1 });
    }
  });
  afterAll(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  it("reads the symbols, the orthologues and the model's nodes, once per version", async () => {
    const lookup = await loadGeneLookup(store, "with");
    expect(await loadGeneLookup(store, "with")).toBe(lookup);
    expect(lookup.hasOrthologues).toBe(true);
    expect(lookup.resolveAll(["OLDA", "ENSG00000000001.3", "Q", "nope"], "human")).toEqual({
      n_input: 4,
      n_recognised: 3,
      genes: [
        { input: "OLDA", symbol: "A", in_model: true },
        { input: "ENSG00000000001.3", symbol: "B", in_model: true },
        { input: "Q", symbol: "Q", in_model: false },
        { input: "nope", symbol: null, in_model: false },
      ],
    });
    expect(lookup.resolveAll(["aa1", "Qq", "B"], "mouse").genes.map((g) => g.symbol)).toEqual([
      "A",
      "Q",
      null,
    ]);
  });

  it("has no orthologues when the HGNC directory had none, and says so for mouse", async () => {
    const lookup = await loadGeneLookup(store, "without");
    expect(lookup.hasOrthologues).toBe(false);
    expect(() => lookup.resolveAll(["Aa1"], "mouse")).toThrow(/orthologue/);
  });

  it("fails for a version that does not exist", async () => {
    await expect(loadGeneLookup(store, "nope")).rejects.toMatchObject({ code: "unknown_model_version" });
  });

  it("loads the orthologue table of a manifest", async () => {
    const { readManifest } = await import("./model-files.ts");
    const manifest = (await readManifest(store, "with"))!;
    expect(manifest.files).toHaveProperty(["hgnc/mouse_human_orthologues.tsv.gz"]);
    expect(manifest.hgnc).not.toHaveProperty(["mouse_human_orthologues.tsv.gz"]);
    expect((await loadOrthologues(store, manifest))?.humanOf("QQ")).toBe("Q");
  });
});
