import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  buildTestApp,
  completeJob,
  submit,
  validationArtifacts,
  type TestApp,
} from "../../testing/helper.ts";

let t: TestApp;
let a: { id: string; key: string };
let b: { id: string; key: string };
let doneA: string;
let doneB: string;
beforeAll(async () => {
  t = await buildTestApp({
    CAUSEWAY_INFLIGHT_LIMIT: "1000",
    CAUSEWAY_RATE_LIMIT: "100000",
    CAUSEWAY_HEAVY_READS_TOTAL: "2",
    CAUSEWAY_HEAVY_READS_PER_ACCOUNT: "1",
    CAUSEWAY_HEAVY_READS_QUEUED_PER_ACCOUNT: "1",
  });
  a = await t.account("internal");
  b = await t.account("internal");
  doneA = await submit(t, a.key);
  await completeJob(t, "prediction", doneA, validationArtifacts());
  doneB = await submit(t, b.key);
  await completeJob(t, "prediction", doneB, validationArtifacts());
}, 120_000);
afterAll(async () => t.close());

const get = (url: string, key: string) => t.app.inject({ url, headers: { "x-api-key": key } });

/** Holds `n` of an account's gate places until released. */
function hold(
  gate: { run<T>(account: string, work: () => Promise<T>): Promise<T> },
  account: string,
  n: number,
) {
  let release!: () => void;
  const released = new Promise<void>((r) => (release = r));
  const runs = Array.from({ length: n }, () => gate.run(account, () => released));
  return async () => {
    release();
    await Promise.all(runs);
  };
}

function expectShareRefusal(res: { statusCode: number; headers: Record<string, unknown>; json(): unknown }) {
  expect(res.statusCode).toBe(429);
  expect(res.headers["x-service-error-code"]).toBe("rate_limited");
  expect(Number(res.headers["retry-after"])).toBeGreaterThanOrEqual(1);
  expect(res.json()).toEqual({ detail: expect.stringContaining("large reads") });
}

describe("on-demand causal graphs are accounted work", () => {
  it("renders each request once, then serves it from memory", async () => {
    const before = t.runner.renders;
    const url = `/v1/predictions/${doneA}/causal-graph?top_n_degs=7&dpi=90`;
    const [x, y] = await Promise.all([get(url, a.key), get(url, a.key)]);
    expect([x.statusCode, y.statusCode]).toEqual([200, 200]);
    expect((await get(url, a.key)).statusCode).toBe(200);
    expect(t.runner.renders - before).toBe(1);
    expect((await get(`/v1/predictions/${doneA}/causal-graph?top_n_degs=8&dpi=90`, a.key)).statusCode).toBe(
      200,
    );
    expect(t.runner.renders - before).toBe(2);
  });

  it("answers 429 with Retry-After to an account over its share; another account is served", async () => {
    const release = hold(t.ctx.graphRenders.gate, a.id, 2);
    const refused = await get(`/v1/predictions/${doneA}/causal-graph?top_n_degs=9&dpi=90`, a.key);
    expectShareRefusal(refused);
    const other = await get(`/v1/predictions/${doneB}/causal-graph?top_n_degs=9&dpi=90`, b.key);
    expect(other.statusCode).toBe(200);
    await release();
    expect((await get(`/v1/predictions/${doneA}/causal-graph?top_n_degs=9&dpi=90`, a.key)).statusCode).toBe(
      200,
    );
  });
});

describe("large non-default status reads are accounted work", () => {
  const large = "max_rows=14500&max_source_influence_rows=45000&max_columns=450";

  it("answers 429 with Retry-After to an account over its share; another account is served", async () => {
    const release = hold(t.ctx.statusDocuments.sizedGate, a.id, 2);
    expectShareRefusal(await get(`/v1/predictions/${doneA}?${large}`, a.key));
    const other = await get(`/v1/predictions/${doneB}?${large}`, b.key);
    expect(other.statusCode).toBe(200);
    expect(other.json().prediction_id).toBe(doneB);
    await release();
    expect((await get(`/v1/predictions/${doneA}?${large}`, a.key)).statusCode).toBe(200);
  });

  it("serves a repeated large read from memory without a slot", async () => {
    const url = `/v1/predictions/${doneA}?max_rows=14000&max_source_influence_rows=45000&max_columns=450`;
    const first = await get(url, a.key);
    expect(first.statusCode).toBe(200);
    const release = hold(t.ctx.statusDocuments.sizedGate, a.id, 2);
    const again = await get(url, a.key);
    expect(again.statusCode).toBe(200);
    expect(again.body).toBe(first.body);
    await release();
  });
});
