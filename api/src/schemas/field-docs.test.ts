import { readFile } from "node:fs/promises";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { DatasetSummary } from "@causeway/contract";
import { STATUS_FIELDS, TARGET_COLUMNS, DATASET_SUMMARY_FIELDS, PARAMETERS } from "./field-docs.ts";
import { HOW_TO_READ_PATH, formattedHowToRead } from "./how-to-read-md.ts";
import { PredictionCreateForm, PredictionStatusResponse } from "./predictions.ts";

describe("how to read the results", () => {
  it("describes every field of the status record, the dataset summary and the submission form", () => {
    for (const k of Object.keys(PredictionStatusResponse.shape)) expect(STATUS_FIELDS, k).toHaveProperty(k);
    for (const k of Object.keys(DatasetSummary.shape)) expect(DATASET_SUMMARY_FIELDS, k).toHaveProperty(k);
    for (const k of Object.keys(PredictionCreateForm.shape)) expect(PARAMETERS, k).toHaveProperty(k);
  });

  it("describes every column the runner writes to target_scores.tsv (v1 and v2)", async () => {
    // The column lists are not part of the runner's package entries: read from its sources.
    const names = async (file: string, constant: string) => {
      const text = await readFile(
        fileURLToPath(new URL(`../../../runner/src/${file}`, import.meta.url)),
        "utf8",
      );
      const body = new RegExp(`${constant} = \\[([^\\]]*)\\]`).exec(text)![1]!;
      return [...body.matchAll(/"([a-z_0-9]+)"/g)].map((m) => m[1]!);
    };
    const columns = [
      ...(await names("jobs/scoring-artifacts.ts", "TARGET_SCORE_COLUMNS")),
      ...(await names("scoring/score-targets-v2.ts", "V2_EXTRA_COLUMNS")),
    ];
    expect(columns.length).toBeGreaterThan(25);
    for (const c of columns) expect(TARGET_COLUMNS, c).toHaveProperty(c);
  });

  it("api/docs/how-to-read.md is generated from the same text (npm run docs:how-to-read)", async () => {
    expect(await readFile(HOW_TO_READ_PATH, "utf8")).toBe(await formattedHowToRead());
  });
});
