import { mkdir, mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Worker } from "node:worker_threads";
import { gzipSync } from "node:zlib";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { JobFailure } from "@causeway/contract";
import { scoreTargets } from "../scoring/index.ts";
import { FsObjectStore } from "../storage/index.ts";
import { TOY_NETWORK, toyScoreInput } from "../../test/fixtures/model/toy.ts";
import { importModel } from "./model-import.ts";
import { assembleModel, loadModel } from "./model-load.ts";
import type { Model } from "./model.ts";
import { SharedBundles } from "./shared-bundle.ts";

let dir: string;
let store: FsObjectStore;
let inputs: { networkPath: string; hgncDir: string };

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), "causeway-shared-"));
  const hgncDir = join(dir, "hgnc");
  await mkdir(hgncDir);
  await writeFile(join(hgncDir, "gene_symbols.tsv.gz"), gzipSync("symbol\nA\nB\nC\nx\ny\nz\n"));
  await writeFile(join(hgncDir, "alias_to_symbol.tsv.gz"), gzipSync("alias\tsymbol\n"));
  await writeFile(join(hgncDir, "ensembl_to_symbol.tsv.gz"), gzipSync("ensembl_id\tsymbol\n"));
  const networkPath = join(dir, "toy.tsv");
  await writeFile(networkPath, TOY_NETWORK);
  store = new FsObjectStore(join(dir, "store"));
  inputs = { networkPath, hgncDir };
  await importModel({ ...inputs, version: "v-toy", store, threads: 1 });
});
afterAll(() => rm(dir, { recursive: true, force: true }));

const scored = (model: Model) => scoreTargets(toyScoreInput(model, 20));

describe("shared model bundles", () => {
  it("a Model assembled on shared buffers scores exactly like one loaded plainly", async () => {
    const bundles = new SharedBundles(store, { cacheDir: join(dir, "cache") });
    // Concurrent asks join one load.
    const [files, again] = await Promise.all([bundles.get("v-toy"), bundles.get("v-toy")]);
    expect(again).toBe(files);
    for (const bytes of Object.values(files.files)) expect(bytes.buffer).toBeInstanceOf(SharedArrayBuffer);
    const shared = assembleModel(files);
    const plain = await loadModel(store, "v-toy");
    expect(shared.influence.buffer).toBeInstanceOf(SharedArrayBuffer);
    expect(plain.influence.buffer).not.toBeInstanceOf(SharedArrayBuffer);
    expect(Array.from(shared.influence)).toEqual(Array.from(plain.influence));
    expect(scored(shared)).toEqual(scored(plain));
  });

  it("reports an unknown version as the job failure it is, and does not remember it", async () => {
    const bundles = new SharedBundles(store);
    const err = await bundles.get("v-later").catch((e: unknown) => e);
    expect(err).toBeInstanceOf(JobFailure);
    expect((err as JobFailure).code).toBe("unknown_model_version");
    // Imported later (a version still importing when a thread first asked): the next ask loads it.
    await importModel({ ...inputs, version: "v-later", store, threads: 1 });
    expect((await bundles.get("v-later")).manifest.version).toBe("v-later");
  });

  it("threads build their models on the host's one copy (a write by the host is seen by them)", async () => {
    const bundles = new SharedBundles(store);
    const thread = (version: string) => {
      const w = new Worker(new URL("../../test/fixtures/model/shared-model-thread.ts", import.meta.url), {
        workerData: { version },
      });
      bundles.serve(w);
      const look = () =>
        new Promise<Record<string, unknown>>((resolve) => {
          const on = (m: { type: string }) => {
            if (m.type !== "seen") return;
            w.off("message", on);
            resolve(m as Record<string, unknown>);
          };
          w.on("message", on);
          w.postMessage({ type: "look" });
        });
      return { w, look };
    };
    const a = thread("v-toy");
    const b = thread("v-toy");
    const missing = thread("v-unknown");
    try {
      const plain = await loadModel(store, "v-toy");
      const [seenA, seenB] = await Promise.all([a.look(), b.look()]);
      for (const seen of [seenA, seenB]) {
        expect(seen.shared).toBe(true);
        expect(seen.influence).toEqual(Array.from(plain.influence));
        expect(seen.sources).toEqual(plain.sourceSymbols);
      }
      // The same memory, not a copy: the host changes the baseline's first value, both see it.
      const files = await bundles.get("v-toy");
      const baseline = new Float64Array(files.files["bundle/baseline.f64"]!.buffer);
      baseline[0] = 42;
      expect((await a.look()).baseline0).toBe(42);
      expect((await b.look()).baseline0).toBe(42);
      expect((await missing.look()).error).toBe("JobFailure");
    } finally {
      await Promise.all([a.w.terminate(), b.w.terminate(), missing.w.terminate()]);
    }
  });
});
