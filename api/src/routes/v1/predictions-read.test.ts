import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  buildTestApp,
  completeJob,
  submit,
  validationArtifacts,
  type TestApp,
} from "../../testing/helper.ts";

let t: TestApp;
beforeAll(async () => {
  t = await buildTestApp({
    CAUSEWAY_INFLIGHT_LIMIT: "1000",
    CAUSEWAY_RATE_LIMIT: "100000",
    CAUSEWAY_DEFAULT_QUOTA: "100000",
  });
}, 120_000);
afterAll(async () => t.close());

const get = (key: string, url: string) => t.app.inject({ url, headers: { "x-api-key": key } });

describe("GET /v1/predictions/{id}", () => {
  it("shows a pending prediction with nullable timestamps and no progress fields yet", async () => {
    const a = await t.account("internal");
    const id = await submit(t, a.key);
    const res = await get(a.key, `/v1/predictions/${id}`);
    expect(res.statusCode).toBe(200);
    const body = res.json();
    expect(body).toMatchObject({
      prediction_id: id,
      status: "pending",
      started_at: null,
      completed_at: null,
      error_message: null,
      job_type: "target_validation",
      target: "STAT1|PROTEIN",
    });
    expect(body).not.toHaveProperty("processing_step");
    expect(body).not.toHaveProperty("progress_pct");
    expect(body.created_at).toBe("2026-01-01T00:00:00.000Z");
  });

  it("gives internal accounts full score columns, the matrix preview, artifacts and error_detail fields", async () => {
    const a = await t.account("internal");
    const id = await submit(t, a.key);
    await completeJob(t, "prediction", id, validationArtifacts());
    const res = await get(
      a.key,
      `/v1/predictions/${id}?max_rows=2&max_columns=1&max_source_influence_rows=2`,
    );
    const body = res.json();
    expect(body.status).toBe("completed");
    expect(body.progress_pct).toBe(100);
    expect(body.results).toHaveLength(2);
    expect(body.results[0]).toEqual({
      id: "STAT1|PROTEIN",
      score: 12.5,
      rank: 0,
      rank_percentage: 0,
      is_deg: true,
      pvalue: 3.1e-13,
      z_score: 7.2,
      protein_expressed: true,
      node_type: "PROTEIN",
      n_degs_significant: 2,
      percentage_degs_significant: 100,
    });
    expect(body.results[1].protein_expressed).toBeNull();
    expect(body.source_influence_matrix).toEqual({
      row_ids: ["STAT1|PROTEIN", "JAK1|PROTEIN"],
      column_ids: ["IRF1|RNA"],
      data: [[1.5], [0.25]],
      truncated_rows: true,
      truncated_columns: true,
    });
    expect(body.artifacts.map((x: { name: string }) => x.name)).toContain("target_scores.tsv");
    expect(body).toHaveProperty("error_detail", null);
    expect(body).not.toHaveProperty("target_validation_score");
    const all = await get(a.key, `/v1/predictions/${id}`);
    expect(all.json().source_influence_matrix.data[0]).toEqual([1.5, null]);
    // Storage keys never appear in a response.
    expect(all.body).not.toContain("jobs/prediction");
  });

  it("redacts external target_validation records: public columns, no artifacts, no error_detail, a validation score", async () => {
    const a = await t.account("external");
    const id = await submit(t, a.key);
    await completeJob(t, "prediction", id, validationArtifacts());
    const body = (await get(a.key, `/v1/predictions/${id}`)).json();
    expect(Object.keys(body.results[0]).sort()).toEqual(["id", "is_deg", "rank", "rank_percentage", "score"]);
    for (const hidden of ["artifacts", "error_detail", "causal_paths"])
      expect(body).not.toHaveProperty(hidden);
    expect(JSON.stringify(body)).not.toMatch(/pvalue|z_score/);
    expect(body.target_validation_score).toEqual({ id: "STAT1|PROTEIN", percentage_degs_significant: 100 });
    const other = (
      await get(a.key, `/v1/predictions/${id}?target=${encodeURIComponent("JAK1|PROTEIN")}`)
    ).json();
    expect(other.target_validation_score).toEqual({ id: "JAK1|PROTEIN", percentage_degs_significant: 50 });
    const none = (await get(a.key, `/v1/predictions/${id}?target=NOPE`)).json();
    expect(none.target_validation_score).toBeNull();
  });

  it("shows error_code to everyone and error_detail only to internal accounts on failures", async () => {
    for (const tier of ["internal", "external"] as const) {
      const a = await t.account(tier);
      const id = await submit(t, a.key);
      await t.callback({
        job_id: id,
        kind: "prediction",
        attempt: "x",
        seq: 3,
        status: "failed",
        error_code: "target_not_reachable",
        error_message: "No path.",
        error_detail: "Traceback: secret",
        billable: true,
        result_files: [],
      });
      const body = (await get(a.key, `/v1/predictions/${id}`)).json();
      expect(body).toMatchObject({
        status: "failed",
        error_code: "target_not_reachable",
        error_message: "No path.",
      });
      if (tier === "internal") expect(body.error_detail).toBe("Traceback: secret");
      else expect(body).not.toHaveProperty("error_detail");
    }
  });

  it.each([
    ["max_rows=0", ["query", "max_rows"]],
    ["max_rows=15001", ["query", "max_rows"]],
    ["max_columns=513", ["query", "max_columns"]],
    ["max_source_influence_rows=abc", ["query", "max_source_influence_rows"]],
    ["target=", ["query", "target"]],
  ])("rejects %s with 422 at the right loc", async (qs, loc) => {
    const a = await t.account("internal");
    const id = await submit(t, a.key);
    const res = await get(a.key, `/v1/predictions/${id}?${qs}`);
    expect(res.statusCode).toBe(422);
    expect(res.json().detail[0].loc).toEqual(loc);
  });

  it("rejects a malformed prediction id with 422 at path", async () => {
    const a = await t.account("internal");
    const res = await get(a.key, `/v1/predictions/not-a-uuid`);
    expect(res.statusCode).toBe(422);
    expect(res.json().detail[0].loc).toEqual(["path", "prediction_id"]);
  });
});

describe("tenancy", () => {
  it("answers another account's prediction exactly like a missing one on every id route", async () => {
    const owner = await t.account("internal");
    const other = await t.account("internal");
    const id = await submit(t, owner.key);
    await completeJob(t, "prediction", id, validationArtifacts());
    const missing = "00000000-0000-4000-8000-000000000000";
    const routes = [
      (x: string) => `/v1/predictions/${x}`,
      (x: string) => `/v1/predictions/${x}/mapped-degs`,
      (x: string) => `/v1/predictions/${x}/degs-impacted`,
      (x: string) => `/v1/predictions/${x}/causal-paths`,
      (x: string) => `/v1/predictions/${x}/intermediary-proteins?top_n_degs=5`,
      (x: string) => `/v1/predictions/${x}/causal-graph?top_n_degs=5`,
      (x: string) => `/v1/causal-analysis?prediction_id=${x}`,
    ];
    for (const route of routes) {
      expect((await get(owner.key, route(id))).statusCode).toBe(200);
      const foreign = await get(other.key, route(id));
      const absent = await get(other.key, route(missing));
      expect(foreign.statusCode).toBe(404);
      expect(foreign.body).toBe(absent.body);
      expect(foreign.headers["content-type"]).toBe(absent.headers["content-type"]);
      expect(foreign.headers["x-service-error-code"]).toBe(absent.headers["x-service-error-code"]);
    }
    // A causal analysis of the owner: its status and graph routes hide it from the other account too.
    const ca = await t.app.inject({
      method: "POST",
      url: "/v1/causal-analysis",
      headers: { "x-api-key": owner.key },
      payload: { prediction_id: id, target: "JAK1|PROTEIN" },
    });
    const caId = ca.json().causal_analysis_id as string;
    await completeJob(t, "causal_analysis", caId, { "causal_graph.png": t.runner.png });
    for (const route of [
      (x: string) => `/v1/causal-analysis/${x}`,
      (x: string) => `/v1/causal-analysis/${x}/graph`,
    ]) {
      expect((await get(owner.key, route(caId))).statusCode).toBe(200);
      const foreign = await get(other.key, route(caId));
      expect(foreign.statusCode).toBe(404);
      expect(foreign.body).toBe((await get(other.key, route(missing))).body);
    }
    const list = (await get(other.key, `/v1/predictions`)).json();
    expect(list.predictions.map((p: { prediction_id: string }) => p.prediction_id)).not.toContain(id);
    const post = await t.app.inject({
      method: "POST",
      url: "/v1/causal-analysis",
      headers: { "x-api-key": other.key },
      payload: { prediction_id: id, target: "STAT1|PROTEIN" },
    });
    const postMissing = await t.app.inject({
      method: "POST",
      url: "/v1/causal-analysis",
      headers: { "x-api-key": other.key },
      payload: { prediction_id: missing, target: "STAT1|PROTEIN" },
    });
    expect(post.statusCode).toBe(404);
    expect(post.body).toBe(postMissing.body);
  });
});

describe("422 on every id-taking route", () => {
  it.each([
    "/v1/predictions/x",
    "/v1/predictions/x/mapped-degs",
    "/v1/predictions/x/degs-impacted",
    "/v1/predictions/x/causal-paths",
    "/v1/predictions/x/intermediary-proteins?top_n_degs=1",
    "/v1/predictions/x/causal-graph?top_n_degs=1",
    "/v1/causal-analysis/x",
    "/v1/causal-analysis/x/graph",
    "/v1/causal-analysis?prediction_id=x",
  ])("%s", async (url) => {
    const a = await t.account("internal");
    const res = await get(a.key, url);
    expect(res.statusCode).toBe(422);
    expect(res.headers["x-service-error-code"]).toBe("validation_error");
    const item = res.json().detail[0];
    expect(Object.keys(item).sort()).toEqual(["loc", "msg", "type"]);
    expect(["path", "query"]).toContain(item.loc[0]);
  });
});

describe("GET /v1/predictions", () => {
  it("pages newest first with an opaque cursor, stable under inserts", async () => {
    const a = await t.account("internal");
    const ids: string[] = [];
    for (let i = 0; i < 5; i++) {
      t.clock.advance(i === 2 ? 0 : 1000); // two rows share a timestamp: the id breaks the tie
      ids.push(await submit(t, a.key));
    }
    const p1 = (await get(a.key, `/v1/predictions?limit=2`)).json();
    expect(p1.predictions).toHaveLength(2);
    expect(p1.next_cursor).toEqual(expect.any(String));
    expect(p1.next_cursor).not.toContain(ids[0]);
    t.clock.advance(1000);
    const late = await submit(t, a.key); // an insert between pages does not shift them
    const p2 = (await get(a.key, `/v1/predictions?limit=2&cursor=${p1.next_cursor}`)).json();
    const p3 = (await get(a.key, `/v1/predictions?limit=2&cursor=${p2.next_cursor}`)).json();
    const seen = [...p1.predictions, ...p2.predictions, ...p3.predictions].map(
      (p: { prediction_id: string }) => p.prediction_id,
    );
    expect(new Set(seen).size).toBe(5);
    expect(seen.sort()).toEqual([...ids].sort());
    expect(seen).not.toContain(late);
    expect(p3.next_cursor).toBeNull();
    const first = (await get(a.key, `/v1/predictions`)).json();
    expect(first.predictions[0].prediction_id).toBe(late);
    expect(first.predictions[0]).not.toHaveProperty("results");
  });

  it.each([["limit=0"], ["limit=101"], ["limit=x"], ["cursor=%21%21"]])("rejects %s with 422", async (qs) => {
    const a = await t.account("internal");
    const res = await get(a.key, `/v1/predictions?${qs}`);
    expect(res.statusCode).toBe(422);
    expect(res.json().detail[0].loc[0]).toBe("query");
  });
});

describe("GET /v1/usage/predictions/quota", () => {
  it("reports total, consumed and remaining", async () => {
    const a = await t.account("external", 7);
    await submit(t, a.key);
    const res = await get(a.key, "/v1/usage/predictions/quota");
    expect(res.json()).toEqual({
      total_quota_requests: 7,
      consumed_quota_requests: 1,
      remaining_quota_requests: 6,
    });
    expect((await t.app.inject({ url: "/v1/usage/predictions/quota" })).statusCode).toBe(401);
  });
});
