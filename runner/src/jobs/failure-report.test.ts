/** The failed report fits the callback contract whatever the data made the failure message. */
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { FailedCallback, JobFailure, MAX_ERROR_DETAIL, MAX_ERROR_MESSAGE } from "@causeway/contract";
import { FsObjectStore } from "../storage/index.ts";
import { ArtifactWriter } from "./artifact-writer.ts";
import { RunMetadata } from "./run-metadata.ts";
import { failureReport } from "./run-job.ts";

let dir = "";
afterEach(async () => {
  if (dir) await rm(dir, { recursive: true, force: true });
});

describe("failureReport", () => {
  it("keeps the failure code when the message lists more than a callback carries", async () => {
    dir = await mkdtemp(join(tmpdir(), "causeway-failure-"));
    const columns = Array.from({ length: 200 }, (_, i) => `obs_column_${i}_${"n".repeat(80)}`);
    const err = new JobFailure(
      "missing_cell_type_column",
      `No cell-type column named "x"; the file's obs columns are ${columns.join(", ")}.`,
      "d".repeat(MAX_ERROR_DETAIL + 500),
    );
    const report = await failureReport(
      err,
      new ArtifactWriter(new FsObjectStore(dir), ""),
      new RunMetadata({}),
    );

    expect(report.status).toBe("failed");
    if (report.status !== "failed") return;
    expect(report.error_code).toBe("missing_cell_type_column");
    expect(report.error_message).toHaveLength(MAX_ERROR_MESSAGE);
    expect(report.error_message.endsWith("…")).toBe(true);
    expect(report.error_message.startsWith('No cell-type column named "x"')).toBe(true);
    expect(report.error_detail).toHaveLength(MAX_ERROR_DETAIL);
    const callback = FailedCallback.safeParse({
      ...report,
      job_id: "00000000-0000-4000-8000-000000000000",
      kind: "prediction",
      attempt: "a",
      seq: 0,
    });
    expect(callback.success).toBe(true);
  });
});
