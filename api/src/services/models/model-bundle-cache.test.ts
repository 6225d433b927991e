import { mkdtemp, readdir, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { FsObjectStore } from "@causeway/runner/storage";
import { entryDir, withBundleCache } from "./model-bundle-cache.ts";

const MANIFEST = "model_manifest.json";
let dir: string;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), "causeway-bundle-cache-"));
});
afterEach(() => rm(dir, { recursive: true, force: true }));

/** What an import writes: two files, then the manifest that lists them. */
function importer(store: FsObjectStore, version: string) {
  const calls = { n: 0 };
  const run = async () => {
    calls.n += 1;
    const files = {
      "bundle/influence.f32": Buffer.alloc(4096, 7),
      "hgnc/symbols.tsv": Buffer.from("A\tB\n"),
    };
    for (const [name, buf] of Object.entries(files)) await store.put(`models/${version}/${name}`, buf);
    const manifest = {
      version,
      files: Object.fromEntries(Object.entries(files).map(([k, v]) => [k, { sha256: "x", bytes: v.length }])),
    };
    await store.put(`models/${version}/${MANIFEST}`, JSON.stringify(manifest, null, 2) + "\n");
    return manifest;
  };
  return { calls, run };
}

const entry = (store: FsObjectStore, cache: string) => ({
  dir: cache,
  bundleKey: "k1",
  version: "v1",
  scoring: "v1",
  store,
  manifestFile: MANIFEST,
});

describe("withBundleCache", () => {
  it("imports once per machine: a second data directory gets the cached objects without importing", async () => {
    const cache = join(dir, "cache");
    const first = new FsObjectStore(join(dir, "data-1"));
    const a = importer(first, "v1");
    const manifest = await withBundleCache(entry(first, cache), a.run);
    expect(a.calls.n).toBe(1);

    const second = new FsObjectStore(join(dir, "data-2"));
    const b = importer(second, "v1");
    expect(await withBundleCache(entry(second, cache), b.run)).toEqual(manifest);
    expect(b.calls.n).toBe(0);
    expect(await second.get("models/v1/bundle/influence.f32")).toEqual(Buffer.alloc(4096, 7));
    expect(JSON.parse((await second.get(`models/v1/${MANIFEST}`)).toString())).toEqual(manifest);
  });

  it("keys entries by bundle, version and scoring", () => {
    const base = { dir, bundleKey: "k1", version: "v1", scoring: "v1" };
    const keys = new Set(
      [base, { ...base, bundleKey: "k2" }, { ...base, version: "v2" }, { ...base, scoring: "v2" }].map(
        entryDir,
      ),
    );
    expect(keys.size).toBe(4);
  });

  it("a damaged entry is imported again and replaced", async () => {
    const cache = join(dir, "cache");
    const first = new FsObjectStore(join(dir, "data-1"));
    await withBundleCache(entry(first, cache), importer(first, "v1").run);
    // The cached influence file is gone: the manifest lists a file the entry lacks.
    await rm(join(entryDir(entry(first, cache)), "bundle", "influence.f32"));
    const second = new FsObjectStore(join(dir, "data-2"));
    const b = importer(second, "v1");
    await withBundleCache(entry(second, cache), b.run);
    expect(b.calls.n).toBe(1);
    expect(await readdir(join(entryDir(entry(first, cache)), "bundle"))).toContain("influence.f32");
  });

  it("never fails an import because the cache cannot be written", async () => {
    const blocked = join(dir, "not-a-dir");
    await writeFile(blocked, "file");
    const store = new FsObjectStore(join(dir, "data"));
    const a = importer(store, "v1");
    const lines: string[] = [];
    await withBundleCache({ ...entry(store, blocked), log: (m) => lines.push(m) }, a.run);
    expect(a.calls.n).toBe(1);
    expect(lines.join("\n")).toMatch(/could not cache/);
  });
});
