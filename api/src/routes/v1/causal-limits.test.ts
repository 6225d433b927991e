/**
 * Causal analyses as accounted work (in-flight and rate limits, max_path_length's bounds) and the
 * tier rule on every causal-analysis route.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { CausalAnalysisJobSpec } from "@causeway/contract";
import { insertCausalAnalysis } from "../../db/jobs.ts";
import { limitKeys } from "../../limits/limit-store.ts";
import {
  buildTestApp,
  completeJob,
  countRows,
  submit,
  validationArtifacts,
  type TestApp,
} from "../../testing/helper.ts";

let t: TestApp;
let key: string;
let accountId: string;
let done: string;
beforeAll(async () => {
  t = await buildTestApp({
    CAUSEWAY_INFLIGHT_LIMIT: "1000",
    CAUSEWAY_RATE_LIMIT: "100000",
    CAUSEWAY_CAUSAL_INFLIGHT_LIMIT: "2",
    CAUSEWAY_CAUSAL_RATE_LIMIT: "4",
    CAUSEWAY_CAUSAL_RATE_WINDOW_SECONDS: "60",
  });
  ({ id: accountId, key } = await t.account("internal"));
  done = await submit(t, key);
  await completeJob(t, "prediction", done, validationArtifacts());
}, 120_000);
afterAll(async () => t.close());

const create = (body: object, k = key) =>
  t.app.inject({ method: "POST", url: "/v1/causal-analysis", headers: { "x-api-key": k }, payload: body });
const get = (url: string, k = key) => t.app.inject({ url, headers: { "x-api-key": k } });

describe("causal-analysis limits", () => {
  it("refuses a max_path_length below the contract's minimum of 1 or not an integer (422)", async () => {
    for (const max_path_length of [0, -3, 2.5, "6"]) {
      const res = await create({ prediction_id: done, target: "STAT1|PROTEIN", max_path_length });
      expect(res.statusCode).toBe(422);
      expect(res.json().detail[0].loc).toEqual(["body", "max_path_length"]);
    }
  });

  it("holds an in-flight slot per analysis until it ends, and rate-limits per key", async () => {
    // The contract sets no maximum: a long search is bounded by the runner's work budget
    // (path_search_too_large), not refused here.
    const first = await create({ prediction_id: done, target: "STAT1|PROTEIN", max_path_length: 40 });
    expect(first.statusCode).toBe(202);
    const dispatched = t.dispatcher.specs.find((s) => s.job_id === first.json().causal_analysis_id);
    expect(dispatched).toMatchObject({ kind: "causal_analysis", params: { max_path_length: 40 } });
    const second = await create({ prediction_id: done, target: "JAK1|PROTEIN" });
    expect(second.statusCode).toBe(202);
    const rows = await countRows(t.ctx, "causal_analyses");
    const third = await create({ prediction_id: done, target: "IRF9|PROTEIN" });
    expect(third.statusCode).toBe(429);
    expect(third.headers["x-service-error-code"]).toBe("inflight_limit");
    expect(await countRows(t.ctx, "causal_analyses")).toBe(rows);
    // The slot is released when the job ends.
    const id1 = first.json().causal_analysis_id as string;
    const id2 = second.json().causal_analysis_id as string;
    await completeJob(t, "causal_analysis", id1, { "causal_graph.png": t.runner.png });
    const slots = () => t.limits.reservations(limitKeys.causalInflight(accountId), t.clock.now.getTime());
    expect(await slots()).toEqual([id2]);
    // A refused request (422) gives its slot back at once.
    expect((await create({ prediction_id: done, target: "NOPE|PROTEIN" })).statusCode).toBe(422);
    expect(await slots()).toEqual([id2]);
    const fourth = await create({ prediction_id: done, target: "IRF9|PROTEIN" });
    expect(fourth.statusCode).toBe(202);
    // Predictions and analyses are limited apart: a prediction is still accepted.
    expect(await submit(t, key)).toMatch(/-/);
    await completeJob(t, "causal_analysis", id2, { "causal_graph.png": t.runner.png });
    await completeJob(t, "causal_analysis", fourth.json().causal_analysis_id, {
      "causal_graph.png": t.runner.png,
    });
    expect(await slots()).toEqual([]);
    // 4 per window: first, second, the 422 and fourth (the in-flight refusal came before the rate check).
    const limited = await create({ prediction_id: done, target: "IRF9|PROTEIN" });
    expect(limited.statusCode).toBe(429);
    expect(limited.headers["x-service-error-code"]).toBe("rate_limited");
    expect(Number(limited.headers["retry-after"])).toBeGreaterThan(0);
    expect(await t.limits.reservations(limitKeys.causalInflight(accountId), t.clock.now.getTime())).toEqual(
      [],
    );
    t.clock.advance(61_000);
    expect((await create({ prediction_id: done, target: "IRF9|PROTEIN" })).statusCode).toBe(202);
  });
});

describe("tier rule: an external account sees no analysis of a target_validation prediction", () => {
  it("POST 404s, the list is empty, status and graph 404 (also for a row made before the rule)", async () => {
    const ext = await t.account("external");
    const p = await submit(t, ext.key);
    await completeJob(t, "prediction", p, validationArtifacts());
    const before = await countRows(t.ctx, "causal_analyses");
    const refused = await create({ prediction_id: p, target: "STAT1|PROTEIN" }, ext.key);
    expect(refused.statusCode).toBe(404);
    expect(refused.json()).toEqual({ detail: "Not found." });
    expect(await countRows(t.ctx, "causal_analyses")).toBe(before);

    // An analysis that exists anyway (made while the account was internal): hidden on every route.
    const id = "0f0f0f0f-0f0f-4f0f-8f0f-0f0f0f0f0f0f";
    const spec = CausalAnalysisJobSpec.parse({
      kind: "causal_analysis",
      job_id: id,
      account_id: ext.id,
      prediction_id: p,
      model_version: "v1",
      target: "STAT1|PROTEIN",
      prediction_artifacts: {},
      params: {},
      metadata: {},
      output_prefix: "results/x",
    });
    await insertCausalAnalysis(t.ctx.db, {
      id,
      accountId: ext.id,
      predictionId: p,
      target: "STAT1|PROTEIN",
      spec,
      now: t.clock.now,
    });
    await completeJob(t, "causal_analysis", id, {
      "causal_graph.png": t.runner.png,
      "causal_paths.tsv": "deg\n",
      "degs_impacted.tsv": "deg\n",
      "run_metadata.json": "{}",
    });
    expect((await get(`/v1/causal-analysis?prediction_id=${p}`, ext.key)).json()).toEqual({ items: [] });
    for (const url of [`/v1/causal-analysis/${id}`, `/v1/causal-analysis/${id}/graph`]) {
      const res = await get(url, ext.key);
      expect(res.statusCode).toBe(404);
      expect(res.body).not.toMatch(/causal_paths|files\//);
    }
    // The prediction's own status lists no artifact links for this tier either.
    const status = (await get(`/v1/predictions/${p}`, ext.key)).json();
    expect(status.artifacts ?? null).toBeNull();
    // An internal account keeps both.
    const mine = await create({ prediction_id: done, target: "STAT1|PROTEIN" });
    expect([202, 429]).toContain(mine.statusCode);
  });
});
