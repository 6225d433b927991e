import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { CausalAnalysisJobSpec } from "@causeway/contract";
import {
  H5,
  buildTestApp,
  completeJob,
  countRows,
  multipart,
  submit,
  validationArtifacts,
  type TestApp,
} from "../../testing/helper.ts";

let t: TestApp;
let key: string;
let done: string;
beforeAll(async () => {
  t = await buildTestApp({
    CAUSEWAY_INFLIGHT_LIMIT: "1000",
    CAUSEWAY_RATE_LIMIT: "100000",
    CAUSEWAY_CAUSAL_INFLIGHT_LIMIT: "1000",
  });
  key = (await t.account("internal")).key;
  done = await submit(t, key);
  await completeJob(t, "prediction", done, validationArtifacts());
}, 120_000);
afterAll(async () => t.close());

const get = (url: string, k = key) => t.app.inject({ url, headers: { "x-api-key": k } });

describe("derived routes of a completed target_validation prediction", () => {
  it("mapped-degs", async () => {
    expect((await get(`/v1/predictions/${done}/mapped-degs`)).json()).toEqual({
      prediction_id: done,
      degs: ["IRF1", "GBP1", "OTHER"],
    });
  });

  it("degs-impacted uses the prediction's target and the artifact's threshold", async () => {
    expect((await get(`/v1/predictions/${done}/degs-impacted`)).json()).toEqual({
      prediction_id: done,
      target: "STAT1|PROTEIN",
      min_deg_fold_uniform: 0.5,
      degs: ["IRF1", "GBP1"],
    });
  });

  it("causal-paths are redacted to CausalPathRow and filtered to the impacted DEGs", async () => {
    const body = (await get(`/v1/predictions/${done}/causal-paths`)).json();
    expect(body.degs).toEqual(["IRF1", "GBP1"]);
    expect(body.degs_total).toBe(2);
    expect(body.paths).toHaveLength(3);
    expect(body.paths[0]).toEqual({
      deg: "IRF1",
      target: "STAT1",
      path: "STAT1>IRF1",
      length: 2,
      score_path_given_target: 0.5,
      path_logFC: null,
      deg_logFC: 2.5,
    });
    expect(JSON.stringify(body)).not.toMatch(/path_probability|path_nodes|OTHER/);
  });

  it("intermediary-proteins requires top_n_degs and passes the impacted order", async () => {
    const body = (await get(`/v1/predictions/${done}/intermediary-proteins?top_n_degs=2`)).json();
    expect(body).toEqual({
      prediction_id: done,
      top_n_degs: 2,
      deg: null,
      proteins: ["IRF1", "IRF9"],
      n_paths_used: 2,
    });
    for (const qs of ["", "top_n_degs=0", "top_n_degs=10001", `top_n_degs=1&deg=${"x".repeat(129)}`]) {
      const res = await get(`/v1/predictions/${done}/intermediary-proteins?${qs}`);
      expect(res.statusCode).toBe(422);
      expect(res.json().detail[0].loc[0]).toBe("query");
    }
  });

  it("causal-graph renders a PNG, 422 on bad stored inputs or query, 404 when not completed", async () => {
    const res = await get(`/v1/predictions/${done}/causal-graph?top_n_degs=3&dpi=100`);
    expect(res.statusCode).toBe(200);
    expect(res.headers["content-type"]).toBe("image/png");
    expect(res.rawPayload.equals(t.runner.png)).toBe(true);
    for (const qs of ["", "top_n_degs=1&dpi=71", "top_n_degs=1&dpi=601"]) {
      expect((await get(`/v1/predictions/${done}/causal-graph?${qs}`)).statusCode).toBe(422);
    }
    const broken = await submit(t, key);
    const files = validationArtifacts();
    files["causal_graph_inputs.json"] = JSON.stringify({ nope: 1 });
    await completeJob(t, "prediction", broken, files);
    const bad = await get(`/v1/predictions/${broken}/causal-graph?top_n_degs=3`);
    expect(bad.statusCode).toBe(422);
    expect(bad.json().detail[0].type).toBe("replay_inputs_invalid");
    const absent = await submit(t, key);
    const files2 = validationArtifacts();
    delete files2["causal_graph_inputs.json"];
    await completeJob(t, "prediction", absent, files2);
    expect((await get(`/v1/predictions/${absent}/causal-graph?top_n_degs=3`)).statusCode).toBe(422);
    const pending = await submit(t, key);
    const nf = await get(`/v1/predictions/${pending}/causal-graph?top_n_degs=3`);
    expect(nf.statusCode).toBe(404);
    expect(nf.json()).toEqual({ detail: "Not found." });
  });

  it("answers 500 with a generic body when storage fails", async () => {
    const p = await submit(t, key);
    await completeJob(t, "prediction", p, validationArtifacts());
    const original = t.store.get.bind(t.store);
    t.store.get = async () => {
      throw new Error("EIO: disk on fire at /secret/path");
    };
    try {
      const res = await get(`/v1/predictions/${p}/causal-graph?top_n_degs=3`);
      expect(res.statusCode).toBe(500);
      expect(res.json()).toEqual({ detail: "Internal server error." });
      expect(res.body).not.toContain("secret");
    } finally {
      t.store.get = original;
    }
  });

  it("answers 404 for a completed target_id prediction", async () => {
    const p = await submit(t, key, multipart({}, { dataset: H5 }));
    await completeJob(t, "prediction", p, validationArtifacts());
    expect((await get(`/v1/predictions/${p}/mapped-degs`)).statusCode).toBe(404);
  });
});

describe("causal analysis", () => {
  const create = (body: unknown, k = key) =>
    t.app.inject({
      method: "POST",
      url: "/v1/causal-analysis",
      headers: { "x-api-key": k },
      payload: body as object,
    });

  it("creates a job with the prediction's artifacts and every parameter, lists it, shows it, serves its graph", async () => {
    const res = await create({
      prediction_id: done,
      target: "JAK1|PROTEIN",
      min_path_fraction: 0.2,
      max_path_length: 4,
      metadata: { who: "me" },
    });
    expect(res.statusCode).toBe(202);
    const { causal_analysis_id: id, status } = res.json();
    expect(status).toBe("pending");
    const spec = CausalAnalysisJobSpec.parse(t.dispatcher.specs.at(-1));
    expect(spec).toMatchObject({
      job_id: id,
      prediction_id: done,
      target: "JAK1|PROTEIN",
      model_version: "v1",
      metadata: { who: "me" },
    });
    expect(spec.params).toEqual({
      top_n_causal_degs: 1000,
      min_path_fraction: 0.2,
      min_path_probability: 0.0001,
      max_path_length: 4,
      min_degs_fold_uniform: null,
      prefix: null,
    });
    expect(Object.keys(spec.prediction_artifacts)).toContain("mapped_degs.json");

    const list = (await get(`/v1/causal-analysis?prediction_id=${done}`)).json();
    expect(list.items).toContainEqual({ causal_analysis_id: id, target: "JAK1|PROTEIN", status: "pending" });
    expect((await get(`/v1/causal-analysis/${id}/graph`)).statusCode).toBe(404);

    await completeJob(t, "causal_analysis", id, {
      "causal_graph.png": t.runner.png,
      "causal_paths.tsv": "deg\n",
    });
    const s = (await get(`/v1/causal-analysis/${id}`)).json();
    expect(s).toMatchObject({
      causal_analysis_id: id,
      status: "completed",
      prediction_id: done,
      target: "JAK1|PROTEIN",
    });
    expect(Buffer.from(s.results.image_base64, "base64").equals(t.runner.png)).toBe(true);
    expect(s.artifacts.map((x: { name: string }) => x.name)).toEqual([
      "causal_graph.png",
      "causal_paths.tsv",
    ]);
    const png = await get(`/v1/causal-analysis/${id}/graph`);
    expect(png.headers["content-type"]).toBe("image/png");
  });

  it("refuses a target that is not in the prediction's results (422) and an unfinished prediction (404)", async () => {
    const before = await countRows(t.ctx, "causal_analyses");
    const res = await create({ prediction_id: done, target: "NOPE|PROTEIN" });
    expect(res.statusCode).toBe(422);
    expect(res.json().detail[0].loc).toEqual(["body", "target"]);
    const bare = await create({ prediction_id: done, target: "STAT1" });
    expect(bare.statusCode).toBe(422);
    expect(bare.json().detail[0].msg).toContain("did you mean STAT1|PROTEIN?");
    const pending = await submit(t, key);
    expect((await create({ prediction_id: pending, target: "STAT1|PROTEIN" })).statusCode).toBe(404);
    expect(await countRows(t.ctx, "causal_analyses")).toBe(before);
  });

  it("refuses a target ranked through the model's evidence layers only: no network path leads from it", async () => {
    const p = await submit(t, key);
    const header =
      "id\tnode_type\tscore\trank\trank_percentage\tpvalue\tz_score\tis_deg\tprotein_expressed\tn_degs_significant\tpercentage_degs_significant\tqvalue\tcandidate_source";
    await completeJob(t, "prediction", p, {
      ...validationArtifacts(),
      "target_scores.tsv": [
        header,
        "STAT1|PROTEIN\tPROTEIN\t12.5\t0\t0\t3.1e-13\t7.2\tTRUE\tTRUE\t2\t100\t1e-10\tnetwork",
        "PSMB1|PROTEIN\tPROTEIN\t1\t1\t1\t0.1\tNA\tFALSE\tNA\t0\t0\t0.2\tppi",
        "",
      ].join("\n"),
    });
    const before = await countRows(t.ctx, "causal_analyses");
    const res = await create({ prediction_id: p, target: "PSMB1|PROTEIN" });
    expect(res.statusCode).toBe(422);
    expect(res.json().detail[0].loc).toEqual(["body", "target"]);
    expect(res.json().detail[0].msg).toContain("evidence layers (ppi)");
    expect(await countRows(t.ctx, "causal_analyses")).toBe(before);
    expect((await create({ prediction_id: p, target: "STAT1|PROTEIN" })).statusCode).toBe(202);
  });

  it.each([
    [{}, ["body", "prediction_id"]],
    [{ prediction_id: "x", target: "A" }, ["body", "prediction_id"]],
    [{ prediction_id: "00000000-0000-4000-8000-000000000000", target: "" }, ["body", "target"]],
    [
      { prediction_id: "00000000-0000-4000-8000-000000000000", target: "A", top_n_causal_degs: 100001 },
      ["body", "top_n_causal_degs"],
    ],
    [
      { prediction_id: "00000000-0000-4000-8000-000000000000", target: "A", min_path_probability: 0 },
      ["body", "min_path_probability"],
    ],
  ])("rejects body %j with 422", async (body, loc) => {
    const res = await create(body);
    expect(res.statusCode).toBe(422);
    expect(res.json().detail.map((d: { loc: unknown }) => d.loc)).toContainEqual(loc);
  });

  it("rejects malformed JSON and bad query/path parameters with 422", async () => {
    const res = await t.app.inject({
      method: "POST",
      url: "/v1/causal-analysis",
      headers: { "x-api-key": key, "content-type": "application/json" },
      payload: "{oops",
    });
    expect(res.statusCode).toBe(422);
    expect(res.json().detail[0]).toMatchObject({ loc: ["body"], type: "json_invalid" });
    expect((await get(`/v1/causal-analysis`)).json().detail[0].loc).toEqual(["query", "prediction_id"]);
    expect((await get(`/v1/causal-analysis/nope`)).json().detail[0].loc).toEqual([
      "path",
      "causal_analysis_id",
    ]);
    expect((await get(`/v1/causal-analysis/nope/graph`)).statusCode).toBe(422);
  });

  it("requires a prefix when the prediction has several result sets", async () => {
    const p = await submit(t, key, multipart({}, { dataset: H5 }));
    const files: Record<string, string | Buffer> = {};
    for (const [name, body] of Object.entries(validationArtifacts())) {
      files[`A.${name}`] = body;
      files[`B.${name}`] = body;
    }
    await completeJob(t, "prediction", p, files, { result_sets: ["A.", "B."] });
    const missing = await create({ prediction_id: p, target: "STAT1|PROTEIN" });
    expect(missing.statusCode).toBe(422);
    expect(missing.json().detail[0].loc).toEqual(["body", "prefix"]);
    const ok = await create({ prediction_id: p, target: "STAT1|PROTEIN", prefix: "B." });
    expect(ok.statusCode).toBe(202);
    const spec = CausalAnalysisJobSpec.parse(t.dispatcher.specs.at(-1));
    expect(spec.params.prefix).toBe("B.");
    expect(spec.prediction_artifacts["target_scores.tsv"]).toMatch(/B\.target_scores\.tsv$/);
    // The status route previews the first result set.
    const st = (await get(`/v1/predictions/${p}`)).json();
    expect(st.results[0].id).toBe("STAT1|PROTEIN");
  });
});
