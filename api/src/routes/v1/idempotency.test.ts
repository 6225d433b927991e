import { randomUUID } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { claimIdempotencyKey } from "../../db/idempotency.ts";
import {
  buildTestApp,
  completeJob,
  countRows,
  splitForm,
  submissionSnapshot,
  submit,
  validationArtifacts,
  type TestApp,
} from "../../testing/helper.ts";

let t: TestApp;
beforeAll(async () => {
  t = await buildTestApp({ CAUSEWAY_INFLIGHT_LIMIT: "1000", CAUSEWAY_RATE_LIMIT: "100000" });
}, 120_000);
afterAll(async () => t.close());

function post(key: string, idem: string | undefined, extra: Record<string, string> = {}) {
  const form = splitForm(extra); // a new random boundary every time
  return t.app.inject({
    method: "POST",
    url: "/v1/predictions",
    headers: {
      ...form.headers,
      "x-api-key": key,
      ...(idem === undefined ? {} : { "idempotency-key": idem }),
    },
    payload: form.payload,
  });
}

describe("Idempotency-Key on POST /v1/predictions", () => {
  it("a retry with the same key and form replays the first 202: no second upload, job or quota unit", async () => {
    const acct = await t.account("external");
    const first = await post(acct.key, '"retry-1"');
    expect(first.statusCode).toBe(202);
    expect(first.headers["idempotent-replayed"]).toBeUndefined();
    const after = await submissionSnapshot(t, acct.id);
    const second = await post(acct.key, "retry-1"); // bare and quoted forms name the same key
    expect(second.statusCode).toBe(202);
    expect(second.headers["idempotent-replayed"]).toBe("true");
    expect(second.headers["content-type"]).toMatch(/^application\/json/);
    expect(second.json()).toEqual(first.json());
    expect(await submissionSnapshot(t, acct.id)).toEqual(after);
  });

  it("the same key with another form is a 422 on the header, and creates nothing", async () => {
    const acct = await t.account("external");
    expect((await post(acct.key, "k-2")).statusCode).toBe(202);
    const before = await submissionSnapshot(t, acct.id);
    const other = await post(acct.key, "k-2", { target: "IRF1|PROTEIN" });
    expect(other.statusCode).toBe(422);
    expect(other.json()).toEqual({
      detail: [
        {
          loc: ["header", "idempotency-key"],
          msg: expect.stringContaining("different request"),
          type: "idempotency_key_mismatch",
        },
      ],
    });
    expect(await submissionSnapshot(t, acct.id)).toEqual(before);
  });

  it("a refused first request keeps no key: the corrected retry with the same key is accepted", async () => {
    const acct = await t.account("external");
    const bad = await post(acct.key, "k-3", { job_type: "target_id" }); // 403 for an external account
    expect(bad.statusCode).toBe(403);
    const fixed = await post(acct.key, "k-3");
    expect(fixed.statusCode).toBe(202);
    expect(fixed.headers["idempotent-replayed"]).toBeUndefined();
  });

  it("a key still held by a running request answers 409 with Retry-After", async () => {
    const acct = await t.account("external");
    const now = t.clock.now;
    await claimIdempotencyKey(t.ctx.db, {
      accountId: acct.id,
      key: "k-4",
      token: randomUUID(),
      now,
      expiresAt: new Date(now.getTime() + 60_000),
      staleBefore: new Date(now.getTime() - 60_000),
    });
    const before = await submissionSnapshot(t, acct.id);
    const res = await post(acct.key, "k-4");
    expect(res.statusCode).toBe(409);
    expect(res.headers["x-service-error-code"]).toBe("idempotency_key_in_use");
    expect(res.headers["retry-after"]).toBe("1");
    expect(await submissionSnapshot(t, acct.id)).toEqual(before);
  });

  it("keys are per account and expire after 24 hours", async () => {
    const a = await t.account("internal");
    const b = await t.account("internal");
    const first = await post(a.key, "shared");
    const other = await post(b.key, "shared");
    expect(other.statusCode).toBe(202);
    expect(other.headers["idempotent-replayed"]).toBeUndefined();
    t.clock.advance(24 * 60 * 60 * 1000);
    const late = await post(a.key, "shared");
    expect(late.statusCode).toBe(202);
    expect(late.headers["idempotent-replayed"]).toBeUndefined();
    expect(late.json().prediction_id).not.toBe(first.json().prediction_id);
  });

  it("rejects malformed keys with the 422 body", async () => {
    const acct = await t.account("external");
    for (const bad of ['""', "has space", "x".repeat(256)]) {
      const res = await post(acct.key, bad);
      expect(res.statusCode).toBe(422);
      expect(res.json().detail[0].loc).toEqual(["header", "idempotency-key"]);
    }
  });
});

describe("Idempotency-Key on POST /v1/causal-analysis", () => {
  it("replays by key and body bytes; another body is a 422; a 404 keeps no key", async () => {
    const acct = await t.account("internal");
    const done = await submit(t, acct.key);
    await completeJob(t, "prediction", done, validationArtifacts());
    const send = (body: unknown, idem: string) =>
      t.app.inject({
        method: "POST",
        url: "/v1/causal-analysis",
        headers: { "x-api-key": acct.key, "content-type": "application/json", "idempotency-key": idem },
        payload: JSON.stringify(body),
      });
    const missing = await send({ prediction_id: randomUUID(), target: "STAT1|PROTEIN" }, "c-1");
    expect(missing.statusCode).toBe(404);
    const rows = await countRows(t.ctx, "causal_analyses");
    const first = await send({ prediction_id: done, target: "STAT1|PROTEIN" }, "c-1");
    expect(first.statusCode).toBe(202);
    const again = await send({ prediction_id: done, target: "STAT1|PROTEIN" }, "c-1");
    expect(again.statusCode).toBe(202);
    expect(again.headers["idempotent-replayed"]).toBe("true");
    expect(again.json()).toEqual(first.json());
    expect(await countRows(t.ctx, "causal_analyses")).toBe(rows + 1);
    const other = await send({ prediction_id: done, target: "STAT1|PROTEIN", top_n_causal_degs: 5 }, "c-1");
    expect(other.statusCode).toBe(422);
    expect(other.json().detail[0].type).toBe("idempotency_key_mismatch");
  });
});
