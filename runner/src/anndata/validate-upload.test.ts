import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { KANG_DIR } from "../../../test/shared-data.ts";
import { closeUploadValidator, prepareUploadValidator, validateUpload } from "./validate-upload.ts";

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
});
