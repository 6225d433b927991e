/**
 * api/docs/how-to-read.md from the same text as the web app's "How to read" page and the
 * descriptions of /openapi.json (how-to-read.ts, field-docs.ts). `--write` writes the file;
 * a unit test checks that the committed file is what this prints.
 */
import { writeFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { ARTIFACT_DESCRIPTIONS, EXTRA_SCORE_COLUMNS, SCORING_VERSIONS } from "@causeway/contract";
import {
  DATASET_SUMMARY_FIELDS,
  PARAMETERS,
  QUERY_PARAMS,
  STATUS_FIELDS,
  TARGET_COLUMNS,
  type FieldDoc,
} from "./field-docs.ts";
import { HOW_TO_READ_INTRO } from "./how-to-read.ts";

export const HOW_TO_READ_PATH = fileURLToPath(new URL("../../docs/how-to-read.md", import.meta.url));

function table(docs: Record<string, FieldDoc>): string {
  const cell = (s: string) => s.replaceAll("|", "\\|");
  return [
    "| field | meaning |",
    "| --- | --- |",
    ...Object.entries(docs).map(
      ([name, d]) => `| \`${name}\` | ${cell(d.summary)}${d.detail ? ` ${cell(d.detail)}` : ""} |`,
    ),
  ].join("\n");
}

export function howToReadMarkdown(): string {
  const out = [
    "# How to read the results",
    "",
    "<!-- Generated from api/src/schemas/how-to-read.ts and field-docs.ts by `npm run docs:how-to-read`; the same text is the web app's “How to read” page and the descriptions in /openapi.json. -->",
    "",
  ];
  for (const s of HOW_TO_READ_INTRO) out.push(`## ${s.title}`, "", ...s.paragraphs.flatMap((p) => [p, ""]));
  out.push(
    "## The ranked target table",
    "",
    "One row per candidate protein, best first (`target_scores.tsv`, `GET /v1/predictions/{id}/targets`). Columns present depend on the model version.",
    "",
    table(TARGET_COLUMNS),
    "",
    "### Columns by model version",
    "",
    "Every version writes the columns of v1 (`id` to `pvalue_method`); the later ones add:",
    "",
    ...SCORING_VERSIONS.map((v) => {
      const extra = EXTRA_SCORE_COLUMNS[v];
      return `- ${v}: ${extra.length === 0 ? "nothing more" : extra.map((c) => `\`${c}\``).join(", ")}`;
    }),
    "",
    "## Downloads",
    "",
    "Each result file, by its stable name (a job with several perturbation levels prefixes them, for example `stim.`).",
    "",
    "| file | what it holds |",
    "| --- | --- |",
    ...Object.entries(ARTIFACT_DESCRIPTIONS).map(([name, what]) => `| \`${name}\` | ${what} |`),
    "",
    "## The status record",
    "",
    table(STATUS_FIELDS),
    "",
    "### Dataset summary",
    "",
    table(DATASET_SUMMARY_FIELDS),
    "",
    "## Submission parameters",
    "",
    table(PARAMETERS),
    "",
    "## Query parameters of the read routes",
    "",
    table(QUERY_PARAMS),
    "",
  );
  return out.join("\n");
}

/** The file as committed: formatted by the repository's prettier settings (npm run lint checks it). */
export async function formattedHowToRead(): Promise<string> {
  const prettier = await import("prettier");
  const options = (await prettier.resolveConfig(HOW_TO_READ_PATH)) ?? {};
  return prettier.format(howToReadMarkdown(), { ...options, parser: "markdown" });
}

if (process.argv[1] === fileURLToPath(import.meta.url) && process.argv.includes("--write")) {
  writeFileSync(HOW_TO_READ_PATH, await formattedHowToRead());
}
