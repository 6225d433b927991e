import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { encodeNpyFloat32 } from "@causeway/runner/artifacts";
import { parseTsv } from "@causeway/runner/artifacts";
import { FsObjectStore } from "@causeway/runner/storage";
import { matrixPreview, readMatrixPreview, readTsvHead } from "./artifacts.ts";

const dir = await mkdtemp(join(tmpdir(), "causeway-ranged-"));
afterAll(() => rm(dir, { recursive: true, force: true }));
const store = new FsObjectStore(dir);

describe("ranged artifact reads", () => {
  it("gives the same first rows as parsing the whole TSV, across chunk boundaries and line endings", async () => {
    const lines = ["id\tscore"];
    for (let i = 0; i < 6000; i++) lines.push(`GENE${i}|PROTEIN\t${(i * 0.123456789).toFixed(9)}`);
    const variants = {
      lf: lines.join("\n") + "\n",
      crlf: lines.join("\r\n") + "\r\n",
      "empty line inside": [...lines.slice(0, 3000), "", ...lines.slice(3000)].join("\n") + "\n",
      "no final newline": lines.join("\n"),
    };
    for (const [name, text] of Object.entries(variants)) {
      await store.put(`t/${name}.tsv`, text);
      const files = { "s.tsv": `t/${name}.tsv` };
      for (const maxRows of [1, 10, 2999, 3000, 3001, 5999, 6000, 15000]) {
        const head = await readTsvHead(store, files, "s.tsv", maxRows);
        expect(parseTsv(head!).rows.slice(0, maxRows), `${name}, ${maxRows} rows`).toEqual(
          parseTsv(text).rows.slice(0, maxRows),
        );
      }
    }
    expect(await readTsvHead(store, {}, "s.tsv", 5)).toBeNull();
  });

  it("previews the matrix from the header and the previewed rows only, as a whole-file decode does", async () => {
    const rows = 300;
    const cols = 40;
    const data = new Float32Array(rows * cols).map((_, i) =>
      i % 17 === 0 ? Number.NaN : Math.cos(i) * 1e-3 * i,
    );
    const npy = encodeNpyFloat32({ rows, cols, data });
    const ids = {
      row_ids: Array.from({ length: rows }, (_, i) => `R${i}`),
      column_ids: Array.from({ length: cols }, (_, i) => `C${i}`),
    };
    await store.put("m/x.npy", npy);
    await store.put("m/x.ids.json", JSON.stringify(ids));
    const files = { "x.npy": "m/x.npy", "x.ids.json": "m/x.ids.json" };
    for (const [r, c] of [
      [1, 1],
      [10, 10],
      [299, 40],
      [300, 39],
      [50000, 512],
    ] as const) {
      expect(await readMatrixPreview(store, files, "x.npy", "x.ids.json", r, c)).toEqual(
        matrixPreview(npy, ids, r, c),
      );
    }
    await store.put("m/short.npy", npy.subarray(0, npy.length - 4));
    await expect(
      readMatrixPreview(
        store,
        { "x.npy": "m/short.npy", "x.ids.json": "m/x.ids.json" },
        "x.npy",
        "x.ids.json",
        1,
        1,
      ),
    ).rejects.toThrow("does not match its shape");
  });
});
