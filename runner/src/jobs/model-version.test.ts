/**
 * Model versions in a job: the manifest's `scoring` selects v1 or v2 scoring, both write the
 * same artifact set, and v2's target table carries every v1 column in the same order plus its
 * artifact-only columns. Runs a target_validation job on the Kang split CD14 monocyte upload.
 */
import { mkdtemp, readFile, readdir, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { KANG_DIR } from "../../../test/shared-data.ts";
import { PredictionParams, scoreColumns } from "@causeway/contract";
import { Model } from "../model/index.ts";
import { defaultModel } from "../../test/fixtures/model/default-model.ts";
import { buildModelFromFiles } from "../model/index.ts";
import { DEFAULT_NETWORK, HGNC_DIR } from "../../../test/shared-data.ts";
import { SCORINGS } from "../scoring/index.ts";
import { FsObjectStore } from "../storage/index.ts";
import { parseTsv } from "../artifacts/tsv.ts";
import { ArtifactWriter } from "./artifact-writer.ts";
import { runPrediction } from "./prediction-job.ts";
import { silentReporter } from "./reporter.ts";
import { RunMetadata } from "./run-metadata.ts";
import { contrastFromDegList } from "./contrast.ts";
import { readDeTable } from "./de-table.ts";

const SPLIT = join(KANG_DIR, "split_cd14mono");
const dirs: string[] = [];
afterAll(async () => {
  for (const d of dirs) await rm(d, { recursive: true, force: true });
});

async function validateStat1(model: Model): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), "causeway-version-"));
  dirs.push(dir);
  const params = PredictionParams.parse({});
  await runPrediction({
    predictionId: "version-test",
    jobType: "target_validation",
    target: "STAT1|PROTEIN",
    params,
    model,
    inputs: {
      shape: "split",
      controlPath: join(SPLIT, "control.h5ad"),
      perturbedPath: join(SPLIT, "perturbed.h5ad"),
      degsJson: await readFile(join(SPLIT, "degs.json"), "utf8"),
    },
    out: new ArtifactWriter(new FsObjectStore(dir), ""),
    reporter: silentReporter,
    metadata: new RunMetadata({
      job_id: "version-test",
      model_version: model.manifest.version,
      parameters: params,
    }),
  });
  return dir;
}

describe("model versions in a target_validation job", async () => {
  const v1 = await defaultModel();
  const bundle = await buildModelFromFiles({
    networkPath: DEFAULT_NETWORK,
    hgncDir: HGNC_DIR,
    walk: SCORINGS.v2.walk,
  });
  // A v2 version: the v2 bundle with a manifest that says so (what `models import` records).
  const v2 = new Model({
    manifest: { ...bundle.manifest, version: "v2", scoring: "v2" },
    symbols: bundle.symbols,
    graph: bundle.graph,
    sourceProteins: bundle.sourceProteins,
    influence: bundle.influence,
    baseline: bundle.baseline,
  });
  const [d1, d2] = [await validateStat1(v1), await validateStat1(v2)];

  it("writes the same artifact set with either version", async () => {
    expect(v1.manifest.scoring).toBe("v1");
    expect((await readdir(d2)).sort()).toEqual((await readdir(d1)).sort());
  });

  it("selects the scoring from the manifest and records it", async () => {
    const meta1 = JSON.parse(await readFile(join(d1, "run_metadata.json"), "utf8")) as {
      scoring: { version: string };
    };
    const meta2 = JSON.parse(await readFile(join(d2, "run_metadata.json"), "utf8")) as {
      scoring: { version: string; hub_exponent: number };
    };
    expect(meta1.scoring.version).toBe("v1");
    expect(meta2.scoring).toMatchObject({ version: "v2", hub_exponent: 0.5 });
  });

  it("keeps v1's columns in v2's target table and adds only artifact columns", async () => {
    const t1 = parseTsv(await readFile(join(d1, "target_scores.tsv"), "utf8"));
    const t2 = parseTsv(await readFile(join(d2, "target_scores.tsv"), "utf8"));
    expect(t1.columns).toEqual(scoreColumns("v1"));
    expect(t2.columns).toEqual(scoreColumns("v2"));
    expect(t2.rows).toHaveLength(t1.rows.length);
    const rank = t2.columns.indexOf("rank");
    expect(t2.rows.map((r) => Number(r[rank]))).toEqual(t2.rows.map((_, i) => i));
    const validation = JSON.parse(await readFile(join(d2, "target_validation.json"), "utf8")) as {
      target: string;
      rank: number;
    };
    const id = t2.columns.indexOf("id");
    expect(t2.rows[validation.rank]![id]).toBe("STAT1|PROTEIN");
  });
});

describe("model v2 on a DEG list with a DE table that carries expression", async () => {
  const v1 = await defaultModel();
  const degs = JSON.parse(await readFile(join(SPLIT, "degs.json"), "utf8")) as string[];
  // A runner-style table: every DEG expressed, IRF9 measured and not expressed in the control arm.
  const text = ["gene\tlog2FC\tmean_cp10k_ctrl", ...degs.map((g) => `${g}\t2\t5`), "IRF9\t0\t0"].join("\n");
  const table = readDeTable(text.replace("log2FC", "logFC"), v1.symbols);
  const params = PredictionParams.parse({});
  const run = async (scoring: "v1" | "v2") => {
    const dir = await mkdtemp(join(tmpdir(), "causeway-table-"));
    dirs.push(dir);
    await runPrediction({
      predictionId: "table-test",
      jobType: "target_id",
      target: null,
      params,
      model: v1,
      inputs: { shape: "contrast", build: (m) => contrastFromDegList(m, degs, table) },
      out: new ArtifactWriter(new FsObjectStore(dir), ""),
      reporter: silentReporter,
      metadata: new RunMetadata({ job_id: "table-test", model_version: "v", parameters: params }),
      scoring,
    });
    return parseTsv(await readFile(join(dir, "target_scores.tsv"), "utf8"));
  };
  const [t1, t2] = [await run("v1"), await run("v2")];
  const cell = (t: typeof t1, id: string, column: string) =>
    t.rows.find((r) => r[t.columns.indexOf("id")] === id)![t.columns.indexOf(column)];

  it("v2 ranks a candidate the table marks as not expressed last; v1 does not read the column", () => {
    expect(table.meanCp10kCtrl).not.toBeNull();
    expect(cell(t2, "IRF9|PROTEIN", "protein_expressed")).toBe("FALSE");
    // After every candidate that is not marked unexpressed.
    const expressedCol = t2.columns.indexOf("protein_expressed");
    const notFalse = t2.rows.filter((r) => r[expressedCol] !== "FALSE").length;
    expect(Number(cell(t2, "IRF9|PROTEIN", "rank"))).toBeGreaterThanOrEqual(notFalse);
    expect(cell(t1, "IRF9|PROTEIN", "protein_expressed")).toBe("NA");
    expect(t1.rows.every((r) => r[t1.columns.indexOf("protein_expressed")] === "NA")).toBe(true);
  });

  it("v2 ranks candidates whose gene the table does not list after the listed ones, and says which", () => {
    const col = (name: string) => t2.columns.indexOf(name);
    const own = new Map(
      t2.rows.map((r) => [
        r[col("id")],
        r[col("protein_expressed")] === "FALSE" ? 2 : r[col("gene_measured")] === "FALSE" ? 1 : 0,
      ]),
    );
    // A single-edge proxy ranks with the candidate it feeds.
    const tiers = t2.rows.map((r) =>
      Math.max(own.get(r[col("id")])!, r[col("proxy_of")] === "NA" ? 0 : own.get(r[col("proxy_of")])!),
    );
    expect(tiers.filter((t) => t === 0).length).toBeGreaterThan(0);
    expect(tiers.filter((t) => t === 1).length).toBeGreaterThan(0);
    expect(tiers).toEqual([...tiers].sort((a, b) => a - b));
    expect(cell(t2, "STAT1|PROTEIN", "gene_measured")).toBe(degs.includes("STAT1") ? "TRUE" : "FALSE");
    expect(t1.columns).not.toContain("gene_measured");
  });
});
