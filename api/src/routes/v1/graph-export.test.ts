/**
 * The causal graph as a network file: GET /v1/predictions/{id}/causal-graph/export and
 * GET /v1/causal-analysis/{id}/graph/export, with the PNG routes' tenancy, 404s and 422s.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { interferonInputs } from "@causeway/runner/testing";
import { selectGraph } from "@causeway/runner/graph/select";
import { CausewayClient } from "../../client/sdk.ts";
import {
  buildTestApp,
  completeJob,
  submit,
  validationArtifacts,
  type TestApp,
} from "../../testing/helper.ts";

let t: TestApp;
let key: string;
let other: string;
let done: string;
const INPUTS = interferonInputs();
beforeAll(async () => {
  t = await buildTestApp({
    CAUSEWAY_INFLIGHT_LIMIT: "1000",
    CAUSEWAY_RATE_LIMIT: "100000",
    CAUSEWAY_CAUSAL_INFLIGHT_LIMIT: "1000",
  });
  key = (await t.account("internal")).key;
  other = (await t.account("internal")).key;
  done = await submit(t, key);
  await completeJob(t, "prediction", done, {
    ...validationArtifacts(),
    "causal_graph_inputs.json": JSON.stringify(INPUTS),
  });
}, 120_000);
afterAll(async () => t.close());

const get = (url: string, k = key) => t.app.inject({ url, headers: { "x-api-key": k } });

describe("GET /v1/predictions/{id}/causal-graph/export", () => {
  it("sends the PNG's nodes and edges as CX2 (default), GraphML or SIF, named after the target", async () => {
    const drawn = selectGraph(INPUTS, 4);
    const cx2 = await get(`/v1/predictions/${done}/causal-graph/export?top_n_degs=4`);
    expect(cx2.statusCode).toBe(200);
    expect(cx2.headers["content-type"]).toMatch(/^application\/json/);
    expect(cx2.headers["content-disposition"]).toBe('attachment; filename="causal_graph_STAT1.cx2"');
    const aspects = Object.assign({}, ...(cx2.json() as object[]).slice(1)) as {
      nodes: { v: { entity_id: string } }[];
      edges: unknown[];
    };
    expect(aspects.nodes.map((n) => n.v.entity_id)).toEqual(drawn.nodes.map((n) => n.id));
    expect(aspects.edges).toHaveLength(drawn.edges.length);

    const graphml = await get(`/v1/predictions/${done}/causal-graph/export?top_n_degs=4&format=graphml`);
    expect(graphml.headers["content-type"]).toMatch(/^application\/graphml\+xml/);
    expect(graphml.headers["content-disposition"]).toContain("causal_graph_STAT1.graphml");
    expect(graphml.body.match(/<node /g)).toHaveLength(drawn.nodes.length);

    const sif = await get(`/v1/predictions/${done}/causal-graph/export?top_n_degs=4&format=sif`);
    expect(sif.headers["content-type"]).toMatch(/^text\/plain/);
    expect(sif.body.trimEnd().split("\n")).toHaveLength(drawn.edges.length);
  });

  it("answers 422 for a bad query or stored inputs, 404 when missing, foreign or not completed", async () => {
    for (const qs of ["", "top_n_degs=0", "top_n_degs=3&format=png"])
      expect((await get(`/v1/predictions/${done}/causal-graph/export?${qs}`)).statusCode).toBe(422);
    const broken = await submit(t, key);
    await completeJob(t, "prediction", broken, {
      ...validationArtifacts(),
      "causal_graph_inputs.json": JSON.stringify({ nope: 1 }),
    });
    const bad = await get(`/v1/predictions/${broken}/causal-graph/export?top_n_degs=3`);
    expect(bad.statusCode).toBe(422);
    expect(bad.json().detail[0].type).toBe("replay_inputs_invalid");
    const foreign = await get(`/v1/predictions/${done}/causal-graph/export?top_n_degs=3`, other);
    const pending = await get(`/v1/predictions/${await submit(t, key)}/causal-graph/export?top_n_degs=3`);
    for (const res of [foreign, pending]) {
      expect(res.statusCode).toBe(404);
      expect(res.json()).toEqual({ detail: "Not found." });
    }
  });
});

describe("GET /v1/causal-analysis/{id}/graph/export", () => {
  async function analysis(files: Record<string, string> | null): Promise<string> {
    const res = await t.app.inject({
      method: "POST",
      url: "/v1/causal-analysis",
      headers: { "x-api-key": key },
      payload: { prediction_id: done, target: "JAK1|PROTEIN" },
    });
    const id = (res.json() as { causal_analysis_id: string }).causal_analysis_id;
    if (files) await completeJob(t, "causal_analysis", id, { "causal_graph.png": t.runner.png, ...files });
    return id;
  }

  it("sends the nodes and edges of the analysis's own image (20 DEGs at most)", async () => {
    const id = await analysis({ "causal_graph_inputs.json": JSON.stringify(INPUTS) });
    const res = await get(`/v1/causal-analysis/${id}/graph/export?format=sif`);
    expect(res.statusCode).toBe(200);
    expect(res.headers["content-disposition"]).toBe('attachment; filename="causal_graph_JAK1.sif"');
    expect(res.body.trimEnd().split("\n")).toHaveLength(selectGraph(INPUTS, 20).edges.length);
    expect((await get(`/v1/causal-analysis/${id}/graph/export?format=dot`)).statusCode).toBe(422);
  });

  it("answers 404 when pending, foreign, or stored without graph inputs", async () => {
    const pending = await analysis(null);
    const bare = await analysis({});
    const done2 = await analysis({ "causal_graph_inputs.json": JSON.stringify(INPUTS) });
    for (const [id, k] of [
      [pending, key],
      [bare, key],
      [done2, other],
    ] as const)
      expect((await get(`/v1/causal-analysis/${id}/graph/export`, k)).statusCode).toBe(404);
  });
});

describe("the SDK's export methods", () => {
  it("return the routes' files as text", async () => {
    const base = await t.app.listen({ port: 0, host: "127.0.0.1" });
    const sdk = new CausewayClient({ baseUrl: base, apiKey: key, requestsPerMinute: 1000 });
    const routeSif = (await get(`/v1/predictions/${done}/causal-graph/export?top_n_degs=4&format=sif`)).body;
    expect(await sdk.getCausalGraphExport(done, { top_n_degs: 4, format: "sif" })).toBe(routeSif);
    const cx2 = JSON.parse(await sdk.getCausalGraphExport(done, { top_n_degs: 4 })) as object[];
    expect(cx2[0]).toEqual({ CXVersion: "2.0", hasFragments: false });
    const res = await t.app.inject({
      method: "POST",
      url: "/v1/causal-analysis",
      headers: { "x-api-key": key },
      payload: { prediction_id: done, target: "JAK1|PROTEIN" },
    });
    const id = (res.json() as { causal_analysis_id: string }).causal_analysis_id;
    await completeJob(t, "causal_analysis", id, {
      "causal_graph.png": t.runner.png,
      "causal_graph_inputs.json": JSON.stringify(INPUTS),
    });
    expect(await sdk.getCausalAnalysisGraphExport(id, { format: "graphml" })).toMatch(/^<\?xml /);
  });
});
