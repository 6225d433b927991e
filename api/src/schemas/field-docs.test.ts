import { readFile } from "node:fs/promises";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import {
  ARTIFACT_DESCRIPTIONS,
  ARTIFACTS,
  DatasetSummary,
  SCORING_VERSIONS,
  scoreColumns,
} from "@causeway/contract";
import { STATUS_FIELDS, TARGET_COLUMNS, DATASET_SUMMARY_FIELDS, PARAMETERS } from "./field-docs.ts";
import { HOW_TO_READ_PATH, formattedHowToRead, howToReadMarkdown } from "./how-to-read-md.ts";
import { TargetRow } from "./targets.ts";
import { PredictionCreateForm, PredictionStatusResponse } from "./predictions.ts";

describe("how to read the results", () => {
  it("describes every field of the status record, the dataset summary and the submission form", () => {
    for (const k of Object.keys(PredictionStatusResponse.shape)) expect(STATUS_FIELDS, k).toHaveProperty(k);
    for (const k of Object.keys(DatasetSummary.shape)) expect(DATASET_SUMMARY_FIELDS, k).toHaveProperty(k);
    for (const k of Object.keys(PredictionCreateForm.shape)) expect(PARAMETERS, k).toHaveProperty(k);
  });

  it.each(SCORING_VERSIONS)("describes every column of model %s's score table", (version) => {
    const columns = scoreColumns(version);
    expect(columns.length).toBeGreaterThanOrEqual(16);
    for (const c of columns) {
      expect(TARGET_COLUMNS, c).toHaveProperty(c);
      expect(TARGET_COLUMNS[c].summary.length, c).toBeGreaterThan(20);
    }
  });

  it.each(SCORING_VERSIONS)(
    "shows every column of model %s in How to read and /openapi.json",
    async (version) => {
      const markdown = howToReadMarkdown();
      const cells = JSON.stringify(z.toJSONSchema(TargetRow));
      for (const c of scoreColumns(version)) {
        expect(markdown, c).toContain(`| \`${c}\` | ${TARGET_COLUMNS[c].summary.replaceAll("|", "\\|")}`);
        expect(cells, c).toContain(`${c}: ${TARGET_COLUMNS[c].summary}`);
      }
    },
  );

  it("says what every downloadable file holds", () => {
    const markdown = howToReadMarkdown();
    for (const name of Object.values(ARTIFACTS)) {
      expect(ARTIFACT_DESCRIPTIONS[name], name).toMatch(/\w{4,}/);
      expect(markdown, name).toContain(`| \`${name}\` | ${ARTIFACT_DESCRIPTIONS[name]} |`);
    }
  });

  it("api/docs/how-to-read.md is generated from the same text (npm run docs:how-to-read)", async () => {
    expect(await readFile(HOW_TO_READ_PATH, "utf8")).toBe(await formattedHowToRead());
  });
});
