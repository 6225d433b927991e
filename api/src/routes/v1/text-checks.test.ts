/**
 * Text that PostgreSQL cannot store is a 422 naming the field, never a 500: NUL and lone
 * surrogates in every text field, file name and JSON value, JSON nested too deep; the total of
 * a form's text parts is capped (413); a failed insert leaves no webhook row behind.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { MAX_JSON_DEPTH } from "../../plugins/text-guard.ts";
import { WebhookSecretBox, rotateWebhookSecret } from "../../webhooks/secrets.ts";
import {
  H5,
  buildTestApp,
  completeJob,
  countRows,
  multipart,
  splitForm,
  storedKeys,
  submit,
  validationArtifacts,
  type TestApp,
} from "../../testing/helper.ts";

let t: TestApp;
let key: string;
let done: string;
const HOOK = "http://127.0.0.1:9/hook";
beforeAll(async () => {
  t = await buildTestApp({
    CAUSEWAY_INFLIGHT_LIMIT: "1000",
    CAUSEWAY_RATE_LIMIT: "100000",
    CAUSEWAY_CAUSAL_INFLIGHT_LIMIT: "1000",
    CAUSEWAY_CAUSAL_RATE_LIMIT: "100000",
    CAUSEWAY_WEBHOOK_ALLOW_PRIVATE: "true",
    CAUSEWAY_MAX_TEXT_BYTES: "65536",
  });
  const a = await t.account("internal");
  key = a.key;
  await rotateWebhookSecret(t.ctx.db, new WebhookSecretBox(t.ctx.callbackSecret), a.id);
  done = await submit(t, key);
  await completeJob(t, "prediction", done, validationArtifacts());
}, 120_000);
afterAll(async () => t.close());

const webhookRows = async () =>
  (await t.ctx.db.query<{ n: number }>("SELECT count(*)::int AS n FROM webhook_deliveries")).rows[0]!.n;

const post = (form: { payload: Buffer; headers: Record<string, string> }) =>
  t.app.inject({
    method: "POST",
    url: "/v1/predictions",
    headers: { ...form.headers, "x-api-key": key },
    payload: form.payload,
  });

const analyse = (body: string) =>
  t.app.inject({
    method: "POST",
    url: "/v1/causal-analysis",
    headers: { "x-api-key": key, "content-type": "application/json" },
    payload: body,
  });

describe("POST /v1/predictions text fields", () => {
  it.each(["label", "target", "model_version", "prefix", "degs"])(
    "a NUL in %s is a 422 naming it; nothing stored, no webhook row",
    async (field) => {
      const rows = await countRows(t.ctx, "predictions");
      const hooks = await webhookRows();
      const objects = (await storedKeys(t.store)).length;
      const value = field === "degs" ? '["IRF1\u0000"]' : "x\u0000y";
      const res = await post(splitForm({ [field]: value, callback_url: HOOK }));
      expect(res.statusCode).toBe(422);
      expect(res.json().detail[0].loc).toEqual(["body", field]);
      expect(res.json().detail[0].type).toBe("string_invalid_text");
      expect(await countRows(t.ctx, "predictions")).toBe(rows);
      expect(await webhookRows()).toBe(hooks);
      expect((await storedKeys(t.store)).length).toBe(objects);
    },
  );

  it("a NUL in a file name is a 422 naming the file field", async () => {
    const res = await post(
      multipart(
        { job_type: "target_validation", target: "STAT1|PROTEIN", degs: '["IRF1"]' },
        { dataset_control: { ...H5, filename: "c\u0000.h5ad" }, dataset_pert: H5 },
      ),
    );
    expect(res.statusCode).toBe(422);
    expect(res.json().detail[0].loc).toEqual(["body", "dataset_control"]);
  });

  it("caps the bytes of all text parts together with 413 and the service's error body", async () => {
    const before = (await storedKeys(t.store)).length;
    // 100 parts of 1 KiB: each far under the field cap, together above the 64 KiB text cap.
    const boundary = "----capcap";
    const parts = Array.from(
      { length: 100 },
      (_, i) =>
        `--${boundary}\r\nContent-Disposition: form-data; name="degs"\r\n\r\nG${i}${"x".repeat(1024)}\r\n`,
    );
    const payload = Buffer.from(parts.join("") + `--${boundary}--\r\n`);
    const res = await post({
      payload,
      headers: { "content-type": `multipart/form-data; boundary=${boundary}` },
    });
    expect(res.statusCode).toBe(413);
    expect(res.headers["x-service-error-code"]).toBe("payload_too_large");
    expect(res.json()).toEqual({ detail: "The text fields of the form exceed 65536 bytes together." });
    expect((await storedKeys(t.store)).length).toBe(before);
  });
});

describe("POST /v1/causal-analysis JSON values", () => {
  it.each([
    ['"metadata": {"note": "a\\u0000b"}', ["body", "metadata", "note"]],
    ['"metadata": {"note": "\\ud800"}', ["body", "metadata", "note"]],
    ['"metadata": {"k\\u0000": 1}', ["body", "metadata", "k\u0000"]],
    ['"metadata": {"list": ["ok", "\\udc00x"]}', ["body", "metadata", "list", 1]],
    ['"prefix": "A\\u0000"', ["body", "prefix"]],
  ])("%s → 422 at %j, no row, no webhook row", async (extra, loc) => {
    const rows = await countRows(t.ctx, "causal_analyses");
    const hooks = await webhookRows();
    const res = await analyse(
      `{"prediction_id": "${done}", "target": "STAT1|PROTEIN", "callback_url": "${HOOK}", ${extra}}`,
    );
    expect(res.statusCode).toBe(422);
    expect(res.json().detail[0].loc).toEqual(loc);
    expect(await countRows(t.ctx, "causal_analyses")).toBe(rows);
    expect(await webhookRows()).toBe(hooks);
  });

  it("refuses JSON nested deeper than the documented limit (100k levels: 422, not a stack overflow)", async () => {
    const deep = (n: number) => "[".repeat(n) + "]".repeat(n);
    const res = await analyse(
      `{"prediction_id": "${done}", "target": "STAT1|PROTEIN", "metadata": {"x": ${deep(100_000)}}}`,
    );
    expect(res.statusCode).toBe(422);
    expect(res.json().detail[0]).toMatchObject({ type: "json_too_deep", ctx: { max_depth: MAX_JSON_DEPTH } });
    // Within the limit (body, metadata, x, then the arrays): accepted.
    const ok = await analyse(
      `{"prediction_id": "${done}", "target": "STAT1|PROTEIN", "metadata": {"x": ${deep(MAX_JSON_DEPTH - 2)}}}`,
    );
    expect(ok.statusCode).toBe(202);
  });

  it("a NUL in a query string is a 422 naming it", async () => {
    const res = await t.app.inject({
      url: `/v1/predictions/${done}/intermediary-proteins?top_n_degs=2&deg=IR%00F1`,
      headers: { "x-api-key": key },
    });
    expect(res.statusCode).toBe(422);
    expect(res.json().detail[0].loc).toEqual(["query", "deg"]);
  });

  it("a job row that cannot be written leaves no webhook row (one transaction)", async () => {
    const hooks = await webhookRows();
    const newId = t.ctx.newId;
    // The id of an existing row: the job insert fails after the webhook insert.
    t.ctx.newId = () => done;
    try {
      const res = await analyse(
        `{"prediction_id": "${done}", "target": "STAT1|PROTEIN", "callback_url": "${HOOK}"}`,
      );
      expect(res.statusCode).toBe(202);
      const again = await analyse(
        `{"prediction_id": "${done}", "target": "STAT1|PROTEIN", "callback_url": "${HOOK}"}`,
      );
      expect(again.statusCode).toBe(500);
      expect(again.json()).toEqual({ detail: "Internal server error." });
    } finally {
      t.ctx.newId = newId;
    }
    expect(await webhookRows()).toBe(hooks + 1);
  });
});
