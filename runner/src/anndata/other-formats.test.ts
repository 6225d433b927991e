/**
 * Files people upload where an .h5ad belongs: the refusal says what the file looks like and how
 * to make an .h5ad of it (a gzip-compressed .h5ad, a text table, a Cell Ranger matrix, a Loom file).
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { gzipSync } from "node:zlib";
import h5wasm from "h5wasm/node";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { KANG_DIR } from "../../../test/shared-data.ts";
import { closeUploadValidator, validateUpload } from "./index.ts";

let dir: string;
beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), "causeway-formats-"));
  await h5wasm.ready;
});
afterAll(async () => {
  await closeUploadValidator();
  rmSync(dir, { recursive: true, force: true });
});

const refusal = async (path: string): Promise<string> => {
  const err = await validateUpload(path, { maxObs: null }).then(
    () => null,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(Error);
  return (err as Error).message;
};

/** An HDF5 file that `build` fills (no AnnData tables). */
function writeHdf5(path: string, build: (f: InstanceType<typeof h5wasm.File>) => void): string {
  const f = new h5wasm.File(path, "w");
  try {
    build(f);
  } finally {
    f.close();
  }
  return path;
}

describe("what an upload that is not an .h5ad is", () => {
  it("a gzip-compressed .h5ad: decompress it first", async () => {
    const path = join(dir, "kang.h5ad.gz");
    writeFileSync(path, gzipSync(readFileSync(join(KANG_DIR, "split_cd14mono", "control.h5ad"))));
    const message = await refusal(path);
    expect(message).toMatch(/not an HDF5 file/);
    expect(message).toMatch(/gzip-compressed/);
  });

  it("a text table of counts: build an AnnData object", async () => {
    const path = join(dir, "counts.csv");
    writeFileSync(path, "gene,ctrl_1,stim_1\nISG15,3,250\nMX1,1,90\n");
    expect(await refusal(path)).toMatch(/looks like a text table.*write_h5ad/);
  });

  it("a Cell Ranger matrix: read it with scanpy", async () => {
    const path = writeHdf5(join(dir, "filtered_feature_bc_matrix.h5"), (f) => {
      const m = f.create_group("matrix");
      m.create_dataset({ name: "barcodes", data: ["AAAC-1", "AAAG-1"] });
      m.create_dataset({ name: "data", data: new Int32Array([1, 2]) });
    });
    expect(await refusal(path)).toMatch(/not an AnnData file\. It looks like a Cell Ranger matrix/);
  });

  it("a Loom file: read it with scanpy", async () => {
    const path = writeHdf5(join(dir, "cells.loom"), (f) => {
      f.create_dataset({ name: "matrix", data: new Float32Array(4), shape: [2, 2] });
      f.create_group("col_attrs");
      f.create_group("row_attrs");
    });
    expect(await refusal(path)).toMatch(/It looks like a Loom file/);
  });
});
