import { randomUUID } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  buildTestApp,
  completeJob,
  submit,
  validationArtifacts,
  type TestApp,
} from "../../testing/helper.ts";
import { openSse, type SseFrame } from "../../testing/sse.ts";

let t: TestApp;
let base: string;
beforeAll(async () => {
  t = await buildTestApp(
    { CAUSEWAY_INFLIGHT_LIMIT: "1000", CAUSEWAY_RATE_LIMIT: "100000" },
    { heartbeatMs: 40 },
  );
  base = await t.app.listen({ host: "127.0.0.1", port: 0 });
}, 120_000);
afterAll(async () => t.close());

const isEvent = (f: SseFrame) => f.event !== undefined;
const data = (f: SseFrame) => JSON.parse(f.data!) as Record<string, unknown>;

function progress(id: string, seq: number, step: "inputs_downloaded" | "de_completed", pct: number) {
  return t.callback({
    job_id: id,
    kind: "prediction",
    attempt: "local-1",
    seq,
    status: "processing",
    processing_step: step,
    progress_pct: pct,
  });
}

describe("GET /v1/predictions/{id}/events", () => {
  it("sends the current state, every change, the terminal event, then closes", async () => {
    const { key } = await t.account("internal");
    const id = await submit(t, key);
    const s = await openSse(`${base}/v1/predictions/${id}/events`, { "x-api-key": key });
    expect(s.status).toBe(200);
    expect(s.headers.get("content-type")).toMatch(/^text\/event-stream/);
    const [first] = (await s.until(isEvent)).filter(isEvent);
    expect(first).toMatchObject({ id: "1", event: "status" });
    expect(data(first!)).toEqual({
      prediction_id: id,
      status: "pending",
      processing_step: null,
      progress_pct: null,
      error_code: null,
      error_message: null,
    });
    expect((await progress(id, 1, "inputs_downloaded", 5)).statusCode).toBe(200);
    expect((await progress(id, 1, "inputs_downloaded", 5)).statusCode).toBe(200); // a duplicate: no event
    expect((await progress(id, 2, "de_completed", 35)).statusCode).toBe(200);
    await completeJob(t, "prediction", id, validationArtifacts());
    const rest = await s.until(() => false); // to the end of the stream
    const events = rest.filter(isEvent);
    expect(
      events.map((f) => [f.id, f.event, data(f).status, data(f).processing_step, data(f).progress_pct]),
    ).toEqual([
      ["2", "status", "processing", "inputs_downloaded", 5],
      ["3", "status", "processing", "de_completed", 35],
      ["4", "completed", "completed", "results_uploaded", 100],
    ]);
    expect(t.ctx.events.listeners(id)).toBe(0);
  });

  it("sends heartbeat comments while nothing changes, and lets go when the client leaves", async () => {
    const { key } = await t.account("internal");
    const id = await submit(t, key);
    const s = await openSse(`${base}/v1/predictions/${id}/events`, { "x-api-key": key });
    const frames = await s.until((f) => f.comments.includes("heartbeat"));
    expect(frames.at(-1)!.comments).toEqual(["heartbeat"]);
    expect(t.ctx.events.listeners(id)).toBe(1);
    s.close();
    await expect.poll(() => t.ctx.events.listeners(id)).toBe(0);
  });

  it("a finished prediction: its terminal event and the end; Last-Event-ID continues the ids", async () => {
    const { key } = await t.account("internal");
    const id = await submit(t, key);
    const failed = await t.callback({
      job_id: id,
      kind: "prediction",
      attempt: "local-1",
      seq: 3,
      status: "failed",
      error_code: "invalid_h5ad",
      error_message: "bad input",
      billable: false,
      result_files: [],
    });
    expect(failed.statusCode).toBe(200);
    const s = await openSse(`${base}/v1/predictions/${id}/events`, {
      "x-api-key": key,
      "last-event-id": "7",
    });
    const events = (await s.until(() => false)).filter(isEvent);
    expect(events).toHaveLength(1);
    expect(events[0]).toMatchObject({ id: "8", event: "failed" });
    expect(data(events[0]!)).toMatchObject({
      status: "failed",
      error_code: "invalid_h5ad",
      error_message: "bad input",
    });
  });

  it("another account's prediction is the same 404 as a missing one", async () => {
    const owner = await t.account("internal");
    const other = await t.account("internal");
    const id = await submit(t, owner.key);
    const foreign = await t.app.inject({
      url: `/v1/predictions/${id}/events`,
      headers: { "x-api-key": other.key },
    });
    const missing = await t.app.inject({
      url: `/v1/predictions/${randomUUID()}/events`,
      headers: { "x-api-key": other.key },
    });
    expect(foreign.statusCode).toBe(404);
    expect(foreign.body).toBe(missing.body);
    expect(foreign.headers["x-service-error-code"]).toBe("not_found");
    expect(t.ctx.events.listeners(id)).toBe(0);
  });
});

describe("the event stream and the edge limit", () => {
  it("counts as one request however long it stays open", async () => {
    const e = await buildTestApp(
      { CAUSEWAY_EDGE_LIMIT_ENABLED: "true", CAUSEWAY_EDGE_LIMIT: "4", CAUSEWAY_INFLIGHT_LIMIT: "1000" },
      { heartbeatMs: 20 },
    );
    try {
      const url = await e.app.listen({ host: "127.0.0.1", port: 0 });
      const { key } = await e.account("internal");
      const id = await submit(e, key); // 1
      const s = await openSse(`${url}/v1/predictions/${id}/events`, { "x-api-key": key }); // 2
      let heartbeats = 0;
      await s.until((f) => (heartbeats += f.comments.length) >= 5);
      const headers = { "x-api-key": key };
      expect((await fetch(`${url}/v1/predictions/${id}`, { headers })).status).toBe(200); // 3
      expect((await fetch(`${url}/v1/predictions/${id}`, { headers })).status).toBe(200); // 4
      expect((await fetch(`${url}/v1/predictions/${id}`, { headers })).status).toBe(403);
      s.close();
    } finally {
      await e.close();
    }
  });

  it("open streams end when the server closes", async () => {
    const e = await buildTestApp({ CAUSEWAY_INFLIGHT_LIMIT: "1000" });
    const url = await e.app.listen({ host: "127.0.0.1", port: 0 });
    const { key } = await e.account("internal");
    const id = await submit(e, key);
    const s = await openSse(`${url}/v1/predictions/${id}/events`, { "x-api-key": key });
    await s.until(isEvent);
    const closing = e.close();
    expect(await s.until(() => false)).toEqual([]);
    await closing;
  });
});
