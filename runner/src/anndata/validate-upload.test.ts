import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { KANG_DIR } from "../../../test/shared-data.ts";
import {
  closeUploadValidator,
  prepareUploadValidator,
  uploadValidatorThreads,
  validateUpload,
} from "./validate-upload.ts";

const SPLIT = join(KANG_DIR, "split_cd14mono");

afterAll(() => closeUploadValidator());

describe("upload validator start", () => {
  it("checks files on a worker started ahead of them, and keeps checking while prepared again", async () => {
    await closeUploadValidator();
    prepareUploadValidator();
    const control = validateUpload(join(SPLIT, "control.h5ad"), { maxObs: 1000 });
    // A second prepare while a check is queued neither replaces nor duplicates the worker.
    prepareUploadValidator();
    const perturbed = validateUpload(join(SPLIT, "perturbed.h5ad"), { maxObs: 1000 });
    const checks = await Promise.all([control, perturbed]);
    for (const c of checks) {
      expect(c.nObs).toBeGreaterThan(0);
      expect(c.nObs).toBeLessThanOrEqual(1000);
      expect(c.nVars).toBeGreaterThan(1000);
    }
  });

  it("starts no spares for well-formed files, and keeps two once a worker has been retired", async () => {
    await closeUploadValidator();
    const file = join(SPLIT, "control.h5ad");
    await validateUpload(file, { maxObs: 1000 });
    expect(uploadValidatorThreads()).toEqual({ active: true, spares: 0 });
    // A worker is retired after 32 files (h5wasm's state is not trusted for ever).
    for (let i = 0; i < 32; i++) await validateUpload(file, { maxObs: 1000 });
    expect(uploadValidatorThreads()).toEqual({ active: true, spares: 2 });
  });
});
