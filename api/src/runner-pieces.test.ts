/**
 * The real runner pieces behind RunnerPieces (no fakes): the upload validator on the shared
 * Kang split files and on junk, the renderer on the runner's own fixture, the aggregation.
 */
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { interferonInputs } from "@causeway/runner/testing";
import { KANG_DIR } from "../../test/shared-data.ts";
import { asUploadRejected, isInvalidGraphInputs, runnerPieces } from "./runner-pieces.ts";

afterAll(async () => runnerPieces.close());

describe("runner pieces", () => {
  it("accepts the Kang split control file under the 1,000-observation cap", async () => {
    const summary = await runnerPieces.validateUpload(join(KANG_DIR, "split_cd14mono", "control.h5ad"), {
      maxObs: 1000,
    });
    expect(summary.nObs).toBeGreaterThan(0);
    expect(summary.nObs).toBeLessThanOrEqual(1000);
  });

  it("rejects a file that is not HDF5 as invalid_h5ad with a user-facing message", async () => {
    const dir = await mkdtemp(join(tmpdir(), "causeway-pieces-"));
    try {
      const path = join(dir, "junk.h5ad");
      await writeFile(path, "not an hdf5 file at all");
      const err = await runnerPieces.validateUpload(path, { maxObs: 1000 }).catch((e: unknown) => e);
      const rejected = asUploadRejected(err);
      expect(rejected?.code).toBe("invalid_h5ad");
      expect(rejected?.message).not.toContain(dir);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });

  it("renders the interferon fixture to a PNG and refuses invalid inputs", async () => {
    const png = await runnerPieces.renderCausalGraph(Buffer.from(JSON.stringify(interferonInputs())), {
      topNDegs: 5,
      dpi: 72,
    });
    expect(png.subarray(0, 8).toString("hex")).toBe("89504e470d0a1a0a");
    const err = await runnerPieces
      .renderCausalGraph(Buffer.from('{"bogus":true}'), { topNDegs: 5, dpi: 72 })
      .catch((e: unknown) => e);
    expect(isInvalidGraphInputs(err)).toBe(true);
  });

  it("aggregates intermediary proteins of the top DEGs", async () => {
    const rows = [
      { deg: "IRF1", path: "STAT1>IRF1", score_path_given_target: 0.5 },
      { deg: "GBP1", path: "STAT1>IRF1>GBP1", score_path_given_target: 0.25 },
    ];
    const out = await runnerPieces.intermediaryProteins(rows, {
      topNDegs: 2,
      deg: null,
      impactedDegOrder: ["IRF1", "GBP1"],
    });
    expect(out).toEqual({ proteins: ["IRF1"], n_paths_used: 1 });
  });
});
