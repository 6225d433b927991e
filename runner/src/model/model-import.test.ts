import { mkdtemp, readFile, rm, writeFile, mkdir } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { gzipSync } from "node:zlib";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { JobFailure } from "@causeway/contract";
import { FsObjectStore } from "../storage/index.ts";
import { TOY_NETWORK } from "../../test/fixtures/model/toy.ts";
import { buildModelFromFiles } from "./build-from-files.ts";
import { ModelVersionConflict } from "./model-files.ts";
import { importModel } from "./model-import.ts";
import { loadModel } from "./model-load.ts";
import { parseGmt, RESOLVED_LAYERS_FILE, setsAsSymbols } from "../libraries/index.ts";

describe("model versions in an object store", () => {
  let dir: string;
  let hgncDir: string;
  let networkPath: string;
  let store: FsObjectStore;

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), "causeway-model-"));
    hgncDir = join(dir, "hgnc");
    await mkdir(hgncDir);
    await writeFile(join(hgncDir, "gene_symbols.tsv.gz"), gzipSync("symbol\nA\nB\nC\nx\ny\nz\n"));
    await writeFile(join(hgncDir, "alias_to_symbol.tsv.gz"), gzipSync("alias\tsymbol\nOLDA\tA\n"));
    await writeFile(join(hgncDir, "ensembl_to_symbol.tsv.gz"), gzipSync("ensembl_id\tsymbol\n"));
    networkPath = join(dir, "toy.tsv");
    await writeFile(networkPath, TOY_NETWORK);
    store = new FsObjectStore(join(dir, "store"));
  });
  afterAll(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  it("imports, re-imports as a no-op, refuses different content, and loads", async () => {
    const progress: number[] = [];
    const manifest = await importModel({
      networkPath,
      hgncDir,
      version: "v-toy",
      store,
      threads: 1,
      onProgress: (d) => progress.push(d),
    });
    expect(progress).toEqual([1]);
    expect(manifest).toMatchObject({
      version: "v-toy",
      alpha: 0.5,
      rho: 0.5,
      hub_exponent: 0,
      weight_rule: "uniform",
      iterations: 34,
      default_max_path_length: 6,
    });
    expect(manifest.counts).toEqual({
      proteins: 3,
      rnas: 3,
      sources: 3,
      edges: 6,
      signaling_edges: 2,
      transcriptional_edges: 4,
    });
    expect(Object.keys(manifest.files)).toContain("network/toy.tsv");
    expect(await store.exists("models/v-toy/bundle/influence.f32")).toBe(true);

    const again = await importModel({ networkPath, hgncDir, version: "v-toy", store, threads: 1 });
    expect(again.created_at).toBe(manifest.created_at);

    const other = join(dir, "other.tsv");
    await writeFile(other, TOY_NETWORK.replace("A|PROTEIN\tC|PROTEIN\t-1", "A|PROTEIN\tC|PROTEIN\t1"));
    await expect(
      importModel({ networkPath: other, hgncDir, version: "v-toy", store, threads: 1 }),
    ).rejects.toBeInstanceOf(ModelVersionConflict);

    const model = await loadModel(store, "v-toy", { cacheDir: join(dir, "cache") });
    expect(await loadModel(store, "v-toy")).toBe(model);
    expect(Array.from(model.influenceOf("A")!)).toEqual([0.0625, 0.125, 0.0625]);
    expect(model.symbols.resolve("olda")).toBe("A");
    expect(model.graph.evidence).toEqual(["", "", "111", "222", "", ""]);
    expect(Array.from(model.graph.sign)).toEqual([1, -1, 1, 1, -1, 1]);
  });

  it("stores evidence layers with a v3 version, checksummed, and loads them parsed", async () => {
    const libs = join(dir, "libs", "chea3");
    await mkdir(libs, { recursive: true });
    const layerPath = join(libs, "toy_chipseq.gmt.gz");
    await writeFile(layerPath, gzipSync("B_EXP1\t\tx\ty\nC_EXP2\t\tolda\tz\n"));
    const layers = [{ path: layerPath, kind: "tf_binding" as const }];
    const manifest = await importModel({
      networkPath,
      hgncDir,
      version: "v3-toy",
      store,
      threads: 1,
      scoring: "v3",
      layers,
    });
    expect(manifest.scoring).toBe("v3");
    expect(manifest.layers).toEqual([
      {
        name: "toy_chipseq",
        kind: "tf_binding",
        file: "toy_chipseq.gmt.gz",
        sha256: expect.stringMatching(/^[0-9a-f]{64}$/),
      },
    ]);
    expect(manifest.files["layers/toy_chipseq.gmt.gz"]?.sha256).toBe(manifest.layers![0]!.sha256);
    // The same inputs re-import as a no-op; the same network without the layer is another version.
    expect(
      (
        await importModel({
          networkPath,
          hgncDir,
          version: "v3-toy",
          store,
          threads: 1,
          scoring: "v3",
          layers,
        })
      ).created_at,
    ).toBe(manifest.created_at);
    await expect(
      importModel({ networkPath, hgncDir, version: "v3-toy", store, threads: 1, scoring: "v3" }),
    ).rejects.toBeInstanceOf(ModelVersionConflict);

    // The parsed sets are stored with the version and loaded from there.
    expect(manifest.files[RESOLVED_LAYERS_FILE]?.bytes).toBeGreaterThan(0);
    const model = await loadModel(store, "v3-toy");
    expect(model.layers).toHaveLength(1);
    expect(setsAsSymbols(model.layers[0]!).get("C")).toEqual([["A", "z"]]);
    expect(setsAsSymbols(model.layers[0]!)).toEqual(
      setsAsSymbols(parseGmt(await readFile(layerPath), "toy_chipseq", "tf_binding", model.symbols)),
    );

    // A version stored before the resolved form existed parses its libraries instead.
    const older = { ...manifest, files: { ...manifest.files } };
    delete older.files[RESOLVED_LAYERS_FILE];
    await store.put("models/v3-old/model_manifest.json", JSON.stringify({ ...older, version: "v3-old" }));
    for (const name of Object.keys(older.files))
      await store.put(`models/v3-old/${name}`, await store.get(`models/v3-toy/${name}`));
    const fromGmt = await loadModel(store, "v3-old");
    expect(setsAsSymbols(fromGmt.layers[0]!)).toEqual(setsAsSymbols(model.layers[0]!));

    // A stored layer that no longer matches its checksum is refused.
    await store.put("models/v3-toy/layers/toy_chipseq.gmt.gz", gzipSync("B_EXP1\t\tx\n"));
    await expect(loadModel(new FsObjectStore(join(dir, "store")), "v3-toy")).rejects.toThrow(/checksum/);
  });

  it("stores a PPI pair file with a v4 version as a checksummed layer, and loads it back", async () => {
    const pairs = join(dir, "huri.tsv");
    await writeFile(pairs, "symbol_a\tsymbol_b\nA\tz\nC\tA\n");
    const manifest = await importModel({
      networkPath,
      hgncDir,
      version: "v4-ppi",
      store,
      threads: 1,
      scoring: "v4",
      layers: [{ path: pairs, kind: "ppi", name: "huri" }],
    });
    expect(manifest.layers).toEqual([
      { name: "huri", kind: "ppi", file: "huri.tsv", sha256: expect.stringMatching(/^[0-9a-f]{64}$/) },
    ]);
    const model = await loadModel(store, "v4-ppi");
    expect(model.layers.map((l) => l.kind)).toEqual(["ppi"]);
    expect(
      setsAsSymbols(model.layers[0]!)
        .get("A")!
        .map((set) => [...set].sort()),
    ).toEqual([["C", "z"]]);
  });

  it("refuses a malformed library before storing anything", async () => {
    const bad = join(dir, "bad_chipseq.gmt");
    await writeFile(bad, "no sets here\n");
    await expect(
      importModel({
        networkPath,
        hgncDir,
        version: "v3-bad",
        store,
        threads: 1,
        scoring: "v3",
        layers: [{ path: bad, kind: "tf_binding" }],
      }),
    ).rejects.toThrow(/no gene-set line/);
    expect(await store.exists("models/v3-bad/model_manifest.json")).toBe(false);
    expect(await store.exists("models/v3-bad/bundle/influence.f32")).toBe(false);
  });

  it("throws unknown_model_version for a missing manifest", async () => {
    const err = await loadModel(store, "v-missing").catch((e: unknown) => e);
    expect(err).toBeInstanceOf(JobFailure);
    expect((err as JobFailure).code).toBe("unknown_model_version");
  });

  it("builds from files once and reuses the cached bundle", async () => {
    const cacheDir = join(dir, "cli-cache");
    let blocks = 0;
    const first = await buildModelFromFiles({
      networkPath,
      hgncDir,
      cacheDir,
      threads: 1,
      onProgress: () => blocks++,
    });
    const second = await buildModelFromFiles({
      networkPath,
      hgncDir,
      cacheDir,
      threads: 1,
      onProgress: () => blocks++,
    });
    expect(blocks).toBe(1);
    expect(second).toBe(first);
    expect(first.sourceSymbols).toEqual(["A", "B", "C"]);
  });

  it("reads the influence bundle of an earlier version with the same walk instead of computing it", async () => {
    const first = await importModel({ networkPath, hgncDir, version: "v-walk-a", store, threads: 1 });
    const progress: number[] = [];
    const reused = await importModel({
      networkPath,
      hgncDir,
      version: "v-walk-b",
      store,
      threads: 1,
      scoring: "v2",
      reuseFrom: ["v-missing", "v-walk-a"],
      onProgress: (d) => progress.push(d),
    });
    // Nothing computed, the same bytes stored.
    expect(progress).toEqual([]);
    expect(reused.scoring).toBe("v2");
    for (const name of ["bundle/influence.f32", "bundle/baseline.f64", "bundle/ids.json"])
      expect(reused.files[name]?.sha256).toBe(first.files[name]?.sha256);
    const a = await loadModel(store, "v-walk-a");
    const b = await loadModel(store, "v-walk-b");
    expect(Array.from(b.influence)).toEqual(Array.from(a.influence));

    // Another walk changes the bundle: computed, not copied.
    const computed: number[] = [];
    const other = await importModel({
      networkPath,
      hgncDir,
      version: "v-walk-c",
      store,
      threads: 1,
      walk: { alpha: 0.5, rho: 0.5, hubExponent: 0.5 },
      reuseFrom: ["v-walk-a"],
      onProgress: (d) => computed.push(d),
    });
    expect(computed).toEqual([1]);
    expect(other.files["bundle/influence.f32"]?.sha256).not.toBe(first.files["bundle/influence.f32"]?.sha256);
  });
});
