import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { KANG_DIR } from "../../../test/shared-data.ts";
import {
  closeUploadValidator,
  readAnnData,
  UploadRejected,
  validateUpload,
  warmUpUploadValidator,
} from "./index.ts";
import {
  HOSTILE_EXPECTED,
  writeHostileFixtures,
  type HostileName,
} from "../../test/fixtures/anndata/hostile.ts";

const KANG_MERGED = join(KANG_DIR, "kang2018_ifnb_cd14mono.h5ad");
let dir: string;
let secret: string;
let files: Record<HostileName, string>;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), "causeway-hostile-"));
  secret = join(dir, "secret.h5");
  writeFileSync(secret, "not for uploads");
  files = await writeHostileFixtures(dir, KANG_MERGED, secret);
  // The API warms the worker at boot; the 2 s bound is about checking, not loading h5wasm.
  await warmUpUploadValidator();
});

afterAll(async () => {
  await closeUploadValidator();
  rmSync(dir, { recursive: true, force: true });
});

describe("validateUpload on hostile files (R9)", () => {
  it.each(Object.entries(HOSTILE_EXPECTED) as [HostileName, string][])(
    "%s → %s within 2 s",
    async (name, code) => {
      const t0 = performance.now();
      const err = await validateUpload(files[name], { maxObs: 1000 }).then(
        () => null,
        (e: unknown) => e,
      );
      const seconds = (performance.now() - t0) / 1000;
      expect(err).toBeInstanceOf(UploadRejected);
      expect((err as UploadRejected).code).toBe(code);
      expect((err as UploadRejected).message.length).toBeGreaterThan(20);
      // Messages are user-facing: no host paths of the service.
      expect((err as UploadRejected).message).not.toContain(dir);
      expect(seconds).toBeLessThan(2);
    },
  );

  it("names what is wrong", async () => {
    const message = async (name: HostileName) =>
      ((await validateUpload(files[name], { maxObs: 1000 }).catch((e: unknown) => e)) as Error).message;
    expect(await message("notHdf5")).toMatch(/not an HDF5 file/);
    expect(await message("externalLinkInObs")).toMatch(/external link/);
    expect(await message("virtualDataset")).toMatch(/virtual dataset/);
    expect(await message("unknownFilter")).toMatch(/filter 32001/);
    expect(await message("declaredSparse2e31")).toMatch(/X declares 2,147,483,648 genes/);
    expect(await message("nObs1001")).toMatch(/1,001 observations/);
    expect(await message("xOfStrings")).toMatch(/strings/);
    expect(await message("obsColumnMissing")).toMatch(/"cell_type" that is missing/);
    expect(await message("manyAttributes")).toMatch(/2000 attributes/);
    expect(await message("nonUtf8")).toMatch(/UTF-8/);
    expect(await message("manyObjects")).toMatch(/more than 4000 objects/);
    expect(await message("hardLinkCycle")).toMatch(/deeper than 24 levels/);
  });

  it("accepts a merged file without an n_obs cap and still checks the real file after the hostile batch", async () => {
    await expect(validateUpload(files.nObs1001, { maxObs: null })).resolves.toMatchObject({
      nObs: 1001,
      nVars: 4,
    });
    const check = await validateUpload(KANG_MERGED, { maxObs: 1000 });
    expect(check).toEqual({
      nObs: 400,
      nVars: 1267,
      obsColumns: ["condition", "sample", "donor", "cell_type"],
      varColumns: ["ensembl_id", "name_in_source", "hgnc_symbol"],
      layers: [],
    });
  });

  it("serves concurrent calls", async () => {
    const results = await Promise.allSettled([
      validateUpload(KANG_MERGED, { maxObs: 1000 }),
      validateUpload(files.truncated, { maxObs: 1000 }),
      validateUpload(KANG_MERGED, { maxObs: 1000 }),
    ]);
    expect(results.map((r) => r.status)).toEqual(["fulfilled", "rejected", "fulfilled"]);
  });
});

describe("readAnnData in-process on hostile files", () => {
  it.each(Object.entries(HOSTILE_EXPECTED) as [HostileName, string][])(
    "%s → JobFailure %s",
    async (name, code) => {
      const err = await readAnnData(files[name]).catch((e: unknown) => e);
      expect(err).toMatchObject({ name: "JobFailure", code });
    },
  );

  it("never opens the file an external-storage dataset points at", async () => {
    // Without the open guard h5wasm would return the bytes of /etc/hostname as X.
    const err = await readAnnData(files.externalRawData).catch((e: unknown) => e);
    expect(err).toMatchObject({ code: "invalid_h5ad" });
  });
});
