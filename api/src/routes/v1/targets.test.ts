import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  buildTestApp,
  completeJob,
  submit,
  validationArtifacts,
  type TestApp,
} from "../../testing/helper.ts";

/** A v2-shaped table: tiers (not expressed, not measured), a proxy, activation z. */
const V2_SCORES =
  [
    "id\tnode_type\tscore\trank\trank_percentage\tpvalue\tz_score\tis_deg\tprotein_expressed\tn_degs_significant\tpercentage_degs_significant\tqvalue\tactivation_z\tproxy_of\tgene_measured\tpvalue_expressed\tunmeasured",
    "STAT1|PROTEIN\tPROTEIN\t12.5\t0\t0\t3e-13\t7.2\tTRUE\tTRUE\t2\t100\t1e-10\t3.1\tNA\tTRUE\tNA\tafter_measured",
    "NELFB|PROTEIN\tPROTEIN\t12.5\t1\t0.2\t3e-13\t7.2\tFALSE\tTRUE\t2\t100\t1e-10\tNA\tSTAT1|PROTEIN\tTRUE\tNA\tafter_measured",
    "JAK1|PROTEIN\tPROTEIN\t8.25\t2\t0.4\t5e-9\t5.1\tFALSE\tTRUE\t1\t50\t1e-6\t-2\tNA\tTRUE\tNA\tafter_measured",
    "IRF9|PROTEIN\tPROTEIN\t1\t3\t0.6\t0.1\tNA\tFALSE\tNA\t0\t0\t0.2\tNA\tNA\tFALSE\tNA\tafter_measured",
    "MUC12|PROTEIN\tPROTEIN\t0.5\t4\t0.8\t0.3\t1\tFALSE\tFALSE\t0\t0\t0.5\t0\tNA\tTRUE\t0.01\tafter_measured",
    "<img src=x onerror=alert(1)>|PROTEIN\tPROTEIN\t0.1\t5\t1\t0.8\t0.1\tFALSE\tTRUE\t0\t0\t0.9\tNA\tNA\tTRUE\tNA\tafter_measured",
  ].join("\n") + "\n";

let t: TestApp;
let internal: string;
let external: string;
let done: string;
let pending: string;
beforeAll(async () => {
  t = await buildTestApp({ CAUSEWAY_INFLIGHT_LIMIT: "1000", CAUSEWAY_RATE_LIMIT: "100000" });
  internal = (await t.account("internal")).key;
  external = (await t.account("external")).key;
  done = await submit(t, internal);
  await completeJob(t, "prediction", done, { ...validationArtifacts(), "target_scores.tsv": V2_SCORES });
  pending = await submit(t, internal);
}, 120_000);
afterAll(async () => t.close());

const get = (url: string, k = internal) => t.app.inject({ url, headers: { "x-api-key": k } });
const ids = (body: { rows: { cells: Record<string, unknown> }[] }) => body.rows.map((r) => r.cells.id);

describe("GET /v1/predictions/{id}/targets", () => {
  it("pages the table in rank order with typed cells, tiers, directions and the pinned target", async () => {
    const res = await get(`/v1/predictions/${done}/targets?limit=2`);
    expect(res.statusCode).toBe(200);
    const body = res.json();
    expect(body.total_rows).toBe(6);
    expect(body.matched_rows).toBe(6);
    expect(ids(body)).toEqual(["STAT1|PROTEIN", "NELFB|PROTEIN"]);
    expect(body.rows[0].cells).toMatchObject({
      score: 12.5,
      rank: 0,
      is_deg: true,
      proxy_of: null,
      pvalue: 3e-13,
    });
    expect(body.rows[0].tier).toBe("measured");
    expect(body.rows[0].direction).toBe("activated");
    expect(body.rows[0].proxies).toEqual(["NELFB|PROTEIN"]);
    expect(body.pinned.cells.id).toBe("STAT1|PROTEIN");
    const next = (await get(`/v1/predictions/${done}/targets?offset=2&limit=2`)).json();
    expect(ids(next)).toEqual(["JAK1|PROTEIN", "IRF9|PROTEIN"]);
    expect(next.rows.map((r: { tier: string }) => r.tier)).toEqual(["measured", "not_measured"]);
    expect(next.rows[0].direction).toBe("inhibited");
  });

  it("sorts by any column, empty cells last, and searches by symbol", async () => {
    const byZ = (await get(`/v1/predictions/${done}/targets?sort=z_score&order=desc`)).json();
    expect(ids(byZ).at(-1)).toBe("IRF9|PROTEIN");
    expect(ids(byZ)[0]).toBe("STAT1|PROTEIN");
    const asc = (await get(`/v1/predictions/${done}/targets?sort=z_score&order=asc`)).json();
    expect(ids(asc).slice(0, 2)).toEqual(["<img src=x onerror=alert(1)>|PROTEIN", "MUC12|PROTEIN"]);
    expect(ids(asc).at(-1)).toBe("IRF9|PROTEIN");
    const q = (await get(`/v1/predictions/${done}/targets?q=jak`)).json();
    expect(ids(q)).toEqual(["JAK1|PROTEIN"]);
    expect(q.matched_rows).toBe(1);
  });

  it("filters by tier and direction and folds proxies under their hub", async () => {
    const tier = (await get(`/v1/predictions/${done}/targets?tier=not_expressed`)).json();
    expect(ids(tier)).toEqual(["MUC12|PROTEIN"]);
    const dir = (await get(`/v1/predictions/${done}/targets?direction=inhibited`)).json();
    expect(ids(dir)).toEqual(["JAK1|PROTEIN"]);
    const folded = (await get(`/v1/predictions/${done}/targets?fold_proxies=true`)).json();
    expect(ids(folded)).not.toContain("NELFB|PROTEIN");
    expect(folded.matched_rows).toBe(5);
    // A search still finds a folded proxy on its own.
    expect(ids((await get(`/v1/predictions/${done}/targets?fold_proxies=true&q=nelf`)).json())).toEqual([
      "NELFB|PROTEIN",
    ]);
  });

  it("gives external accounts the public columns only, and refuses what would reveal the others", async () => {
    const own = await submit(t, external);
    await completeJob(t, "prediction", own, { ...validationArtifacts(), "target_scores.tsv": V2_SCORES });
    const body = (await get(`/v1/predictions/${own}/targets`, external)).json();
    expect(body.columns).toEqual(["id", "score", "rank", "rank_percentage", "is_deg"]);
    expect(Object.keys(body.rows[0])).toEqual(["cells"]);
    expect(Object.keys(body.rows[0].cells)).toEqual(body.columns);
    expect(JSON.stringify(body)).not.toMatch(/pvalue|proxy|activation|tier/);
    for (const qs of ["sort=pvalue", "tier=measured", "direction=activated", "fold_proxies=true"]) {
      const res = await get(`/v1/predictions/${own}/targets?${qs}`, external);
      expect(res.statusCode, qs).toBe(422);
      expect(res.json().detail[0].loc[0]).toBe("query");
    }
    expect((await get(`/v1/predictions/${own}/targets?sort=score&order=desc`, external)).statusCode).toBe(
      200,
    );
  });

  it("is 404 for another account's, a missing and an unfinished prediction; 401 without a key; 422 on bad queries", async () => {
    expect((await get(`/v1/predictions/${done}/targets`, external)).statusCode).toBe(404);
    expect((await get(`/v1/predictions/${pending}/targets`)).statusCode).toBe(404);
    expect((await get(`/v1/predictions/00000000-0000-4000-8000-000000000000/targets`)).statusCode).toBe(404);
    expect((await t.app.inject({ url: `/v1/predictions/${done}/targets` })).statusCode).toBe(401);
    for (const qs of [
      "limit=0",
      "limit=501",
      "offset=-1",
      "sort=nope",
      "order=up",
      "tier=x",
      "result_set=zz.",
    ]) {
      expect((await get(`/v1/predictions/${done}/targets?${qs}`)).statusCode, qs).toBe(422);
    }
  });

  it("is documented in /openapi.json with a description for every query parameter", async () => {
    const doc = (await t.app.inject({ url: "/openapi.json" })).json();
    const op = doc.paths["/v1/predictions/{prediction_id}/targets"].get;
    expect(op.operationId).toBe("getPredictionTargets");
    const params = op.parameters.filter((p: { in: string }) => p.in === "query");
    expect(params.map((p: { name: string }) => p.name)).toEqual(
      expect.arrayContaining(["offset", "limit", "sort", "order", "q", "tier", "direction"]),
    );
    for (const p of params) expect(p.description, p.name).toBeTruthy();
  });
});
