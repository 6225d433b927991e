/**
 * The additive parts of POST /v1/predictions and the status record: the dataset fields
 * (columns, control level, cell type, species) reaching the job spec, the DEG-list guards
 * (tables refused with what was seen, recognised counts, too few recognised), the target's
 * "did you mean", and warnings on the status record and the event stream. The symbol tables
 * behind the gene checks are the shared HGNC snapshot's (real), the datasets are the fake
 * validator's (the test app never reads HDF5).
 */
import { readFile } from "node:fs/promises";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { PredictionJobSpec } from "@causeway/contract";
import { GeneLookup, ORTHOLOGUE_FILE, OrthologueTable, SymbolTable } from "@causeway/runner/symbols";
import { HGNC_DIR } from "../../../../test/shared-data.ts";
import { H5, buildTestApp, completeJob, multipart, splitForm, type TestApp } from "../../testing/helper.ts";

let t: TestApp;
let key: string;
beforeAll(async () => {
  t = await buildTestApp({
    CAUSEWAY_INFLIGHT_LIMIT: "1000",
    CAUSEWAY_RATE_LIMIT: "100000",
    CAUSEWAY_DEFAULT_QUOTA: "100000",
  });
  const symbols = await SymbolTable.load(HGNC_DIR);
  const orthologues = OrthologueTable.fromBuffer(await readFile(join(HGNC_DIR, ORTHOLOGUE_FILE)));
  t.runner.lookup = new GeneLookup(symbols, orthologues, new Set(["STAT1", "IRF1", "GBP1"]));
  key = (await t.account("internal")).key;
}, 120_000);
afterAll(async () => t.close());

const post = (form: { payload: Buffer; headers: Record<string, string> }) =>
  t.app.inject({
    method: "POST",
    url: "/v1/predictions",
    headers: { ...form.headers, "x-api-key": key },
    payload: form.payload,
  });

const mergedForm = (fields: Record<string, string>) =>
  multipart({ job_type: "target_id", ...fields }, { dataset: { ...H5, filename: "kang.h5ad" } });

describe("dataset fields", () => {
  it("carries the columns, control level, cell type and species into the job spec", async () => {
    const res = await post(
      mergedForm({
        condition_column: "arm",
        control_level: "unstim",
        sample_column: "individual",
        donor_column: "individual",
        cell_type_column: "annot",
        cell_type: "CD14+ Monocytes",
        species: "mouse",
      }),
    );
    expect(res.statusCode).toBe(202);
    const spec = PredictionJobSpec.parse(t.dispatcher.specs.at(-1));
    expect(spec.dataset).toEqual({
      condition_column: "arm",
      control_level: "unstim",
      sample_column: "individual",
      donor_column: "individual",
      cell_type_column: "annot",
      cell_type: "CD14+ Monocytes",
      species: "mouse",
    });
  });

  it("defaults to detection and human genes", async () => {
    expect((await post(mergedForm({}))).statusCode).toBe(202);
    const spec = PredictionJobSpec.parse(t.dispatcher.specs.at(-1));
    expect(spec.dataset).toMatchObject({ condition_column: null, cell_type: null, species: "human" });
  });

  it("answers 422 for an unknown species, an over-long column name and control_level on the split shape", async () => {
    for (const [form, loc] of [
      [mergedForm({ species: "rat" }), "species"],
      [mergedForm({ condition_column: "x".repeat(300) }), "condition_column"],
      [splitForm({ control_level: "ctrl" }), "control_level"],
    ] as const) {
      const res = await post(form);
      expect(res.statusCode).toBe(422);
      expect(res.json().detail[0].loc).toEqual(["body", loc]);
    }
  });
});

describe("perturbation_type", () => {
  it("reaches the job's parameters when given, and is absent (unknown) when not", async () => {
    expect((await post(mergedForm({ perturbation_type: "ligand" }))).statusCode).toBe(202);
    expect(PredictionJobSpec.parse(t.dispatcher.specs.at(-1)).params.perturbation_type).toBe("ligand");
    expect((await post(mergedForm({ perturbation_type: "" }))).statusCode).toBe(202);
    expect(PredictionJobSpec.parse(t.dispatcher.specs.at(-1)).params).not.toHaveProperty("perturbation_type");
  });

  it("answers 422 naming the field for a kind the service does not know", async () => {
    const res = await post(mergedForm({ perturbation_type: "crispr" }));
    expect(res.statusCode).toBe(422);
    expect(res.json().detail[0].loc).toEqual(["body", "perturbation_type"]);
  });
});

describe("degs guards", () => {
  it("refuses a DESeq2 table split into entries, saying what it saw", async () => {
    const entries = [
      "baseMean",
      "log2FoldChange",
      "lfcSE",
      "stat",
      "pvalue",
      "padj",
      "IFIT1",
      "512.3",
      "4.2",
      "0.3",
    ];
    const res = await post(splitForm({ degs: JSON.stringify(entries) }));
    expect(res.statusCode).toBe(422);
    const item = res.json().detail[0];
    expect(item).toMatchObject({ loc: ["body", "degs"], type: "deg_list_is_table" });
    expect(item.msg).toContain('"baseMean"');
    expect(item.msg).toContain("numbers");
  });

  it("refuses a DE table pasted as text and entries holding tabs", async () => {
    const table = '"","baseMean","log2FoldChange","padj"\n"IFIT1",512.3,4.2,1e-30\n"MX1",300,3.1,1e-20\n';
    for (const degs of [table, JSON.stringify(["IFIT1\t4.2", "MX1\t3.1"])]) {
      const res = await post(splitForm({ degs }));
      expect(res.statusCode).toBe(422);
      expect(res.json().detail[0].type).toBe("deg_list_is_table");
    }
  });

  it("answers how many entries were recognised, Ensembl ids included", async () => {
    const res = await post(splitForm({ degs: JSON.stringify(["IRF1", "ENSG00000169429", "NOT_A_GENE_1"]) }));
    expect(res.statusCode).toBe(202);
    expect(res.json()).toMatchObject({ n_degs: 3, n_degs_recognised: 2 });
  });

  it("refuses a list with too few recognised genes, with suggestions", async () => {
    const res = await post(
      splitForm({
        job_type: "target_id",
        target: "",
        degs: JSON.stringify(["STAT1|PROTEIN", "FOO1", "BAR2"]),
      }),
    );
    expect(res.statusCode).toBe(422);
    const item = res.json().detail[0];
    expect(item).toMatchObject({ loc: ["body", "degs"], type: "too_few_recognised_degs" });
    expect(item.msg).toContain("only 0 of 3");
    expect(item.msg).toContain("STAT1|PROTEIN → STAT1");
  });

  it("reads mouse symbols with species=mouse", async () => {
    const res = await post(splitForm({ species: "mouse", degs: JSON.stringify(["Irf1", "Gbp2", "Stat1"]) }));
    expect(res.statusCode).toBe(202);
    expect(res.json().n_degs_recognised).toBe(3);
  });
});

describe("target", () => {
  it("says did you mean STAT1|PROTEIN for a bare symbol or an RNA id", async () => {
    for (const target of ["STAT1", "STAT1|RNA"]) {
      const res = await post(splitForm({ target }));
      expect(res.statusCode).toBe(422);
      expect(res.json().detail[0].msg).toContain("did you mean STAT1|PROTEIN?");
    }
  });
});

describe("the OpenAPI document", () => {
  it("describes every new field", async () => {
    const doc = (await t.app.inject({ url: "/openapi.json" })).json();
    const schemas = doc.components.schemas;
    const form = schemas.PredictionCreateForm.properties;
    for (const f of [
      "condition_column",
      "control_level",
      "sample_column",
      "donor_column",
      "cell_type_column",
      "cell_type",
      "species",
    ])
      expect(form[f]?.description, f).toBeTruthy();
    expect(form.species.enum).toEqual(["human", "mouse"]);
    expect(schemas.PredictResponse.properties.n_degs_recognised.description).toBeTruthy();
    expect(schemas.PredictionStatusResponse.properties.warnings.description).toContain("low_residual_df");
    expect(schemas.JobWarning.properties.code.description).toBeTruthy();
  });
});

describe("warnings", () => {
  it("appear on the status record and the terminal event when the job reported them", async () => {
    const res = await post(splitForm());
    const id = res.json().prediction_id as string;
    const warnings = [{ code: "low_residual_df", message: "Only 1 residual degree of freedom." }];
    await completeJob(t, "prediction", id, {}, { warnings });
    const status = (
      await t.app.inject({ url: `/v1/predictions/${id}`, headers: { "x-api-key": key } })
    ).json();
    expect(status.warnings).toEqual(warnings);
    const events = await t.app.inject({ url: `/v1/predictions/${id}/events`, headers: { "x-api-key": key } });
    const data = events.body
      .split("\n")
      .filter((l) => l.startsWith("data: "))
      .map((l) => JSON.parse(l.slice(6)));
    expect(data.at(-1)).toMatchObject({ status: "completed", warnings });
  });

  it("are absent when there are none", async () => {
    const id = (await post(splitForm())).json().prediction_id as string;
    await completeJob(t, "prediction", id, {});
    const status = (
      await t.app.inject({ url: `/v1/predictions/${id}`, headers: { "x-api-key": key } })
    ).json();
    expect(status).not.toHaveProperty("warnings");
  });
});
