import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { PredictionJobSpec } from "@causeway/contract";
import { getQuota } from "../../db/accounts.ts";
import { limitKeys } from "../../limits/limit-store.ts";
import {
  H5,
  buildTestApp,
  countRows,
  multipart,
  splitForm,
  storedKeys,
  type TestApp,
} from "../../testing/helper.ts";

let t: TestApp;
beforeAll(async () => {
  t = await buildTestApp({ CAUSEWAY_RATE_LIMIT: "3", CAUSEWAY_MAX_UPLOAD_BYTES: "4096" });
}, 120_000);
afterAll(async () => t.close());
beforeEach(() => {
  t.runner.reject = null;
  t.dispatcher.fail = false;
});

async function post(key: string, form = splitForm()) {
  return t.app.inject({
    method: "POST",
    url: "/v1/predictions",
    headers: { ...form.headers, "x-api-key": key },
    payload: form.payload,
  });
}

async function snapshot(accountId: string) {
  return {
    rows: await countRows(t.ctx, "predictions"),
    objects: (await storedKeys(t.store)).length,
    dispatched: t.dispatcher.specs.length,
    quota: (await getQuota(t.ctx.db, accountId, 100)).consumed_quota_requests,
    inflight: (await t.limits.reservations(limitKeys.inflight(accountId), t.clock.now.getTime())).length,
  };
}

describe("POST /v1/predictions authentication", () => {
  it("answers missing, malformed, unknown and revoked keys identically with 401 unauthorized", async () => {
    const a = await t.account("internal");
    const { ctx } = t;
    const { rows } = await ctx.db.query<{ id: string }>(`SELECT id FROM api_keys WHERE account_id = $1`, [
      a.id,
    ]);
    await ctx.db.query(`UPDATE api_keys SET revoked_at = now() WHERE id = $1`, [rows[0]!.id]);
    const form = splitForm();
    const variants: Record<string, string>[] = [
      {},
      { "x-api-key": "garbage" },
      { "x-api-key": "cw_" + "A".repeat(43) },
      { "x-api-key": "x".repeat(500) },
      { "x-api-key": a.key },
    ];
    const bodies = new Set<string>();
    for (const h of variants) {
      const res = await t.app.inject({
        method: "POST",
        url: "/v1/predictions",
        headers: { ...form.headers, ...h },
        payload: form.payload,
      });
      expect(res.statusCode).toBe(401);
      expect(res.headers["x-service-error-code"]).toBe("unauthorized");
      bodies.add(res.body);
    }
    expect([...bodies]).toEqual(['{"detail":"Missing or invalid API key."}']);
  });
});

describe("POST /v1/predictions success", () => {
  it("accepts a split target_validation upload: stores three opaque objects, records pending, dispatches a contract JobSpec", async () => {
    const a = await t.account("external");
    const before = await snapshot(a.id);
    const res = await post(a.key, splitForm({ top_n_causal_degs: "50", label: "" }));
    expect(res.statusCode).toBe(202);
    const body = res.json<{ prediction_id: string; status: string }>();
    expect(body.status).toBe("pending");
    const after = await snapshot(a.id);
    expect(after).toEqual({
      ...before,
      rows: before.rows + 1,
      objects: before.objects + 3,
      dispatched: before.dispatched + 1,
      quota: 1,
      inflight: 1,
    });
    const spec = PredictionJobSpec.parse(t.dispatcher.specs.at(-1));
    expect(spec.job_id).toBe(body.prediction_id);
    expect(spec.job_type).toBe("target_validation");
    expect(spec.target).toBe("STAT1|PROTEIN");
    expect(spec.model_version).toBe("v1");
    expect(spec.params.top_n_causal_degs).toBe(50);
    expect(spec.params.min_path_probability).toBe(0.0001);
    expect(spec.inputs.shape).toBe("split");
    if (spec.inputs.shape === "split") {
      expect(spec.inputs.control_key).not.toContain(a.id);
      expect(JSON.parse((await t.store.get(spec.inputs.degs_key)).toString())).toEqual(["IRF1", "GBP1"]);
    }
    expect(t.runner.validated.slice(-2).map((v) => v.maxObs)).toEqual([1000, 1000]);
    expect(t.runner.prepared).toBeGreaterThan(0);
    const status = await t.app.inject({
      url: `/v1/predictions/${body.prediction_id}`,
      headers: { "x-api-key": a.key },
    });
    expect(status.json().label).toMatch(/target_validation STAT1\|PROTEIN/);
  });

  it("accepts a merged target_id upload from an internal account with defaults and no observation cap", async () => {
    const a = await t.account("internal");
    const res = await post(a.key, multipart({ label: "my run" }, { dataset: H5 }));
    expect(res.statusCode).toBe(202);
    const spec = PredictionJobSpec.parse(t.dispatcher.specs.at(-1));
    expect(spec.job_type).toBe("target_id");
    expect(spec.params).toMatchObject({
      deg_significance_fold: 1,
      min_mean_expression: 0.1,
      n_randomizations: 0,
    });
    expect(t.runner.validated.at(-1)!.maxObs).toBeNull();
    expect(spec.output_prefix).toMatch(/^results\/[0-9a-f]{32}$/);
  });
});

describe("POST /v1/predictions as generated clients send it", () => {
  it("takes file parts without a filename and degs as one part per symbol (JSON or text)", async () => {
    const a = await t.account("external");
    const boundary = "----generated";
    const part = (name: string, value: string, type?: string) =>
      `--${boundary}\r\nContent-Disposition: form-data; name="${name}"\r\n` +
      (type ? `Content-Type: ${type}\r\n` : "") +
      `\r\n${value}\r\n`;
    const payload =
      part("dataset_control", "control bytes") +
      part("dataset_pert", "perturbed bytes") +
      part("degs", '"IFIT1"', "application/json") +
      part("degs", "MX1") +
      part("job_type", "target_validation") +
      part("target", "STAT1|PROTEIN") +
      `--${boundary}--\r\n`;
    const res = await post(a.key, {
      payload: Buffer.from(payload),
      headers: { "content-type": `multipart/form-data; boundary=${boundary}` },
    });
    expect(res.statusCode, res.body).toBe(202);
    const spec = PredictionJobSpec.parse(t.dispatcher.specs.at(-1));
    if (spec.inputs.shape !== "split") throw new Error("expected the split shape");
    expect(JSON.parse((await t.store.get(spec.inputs.degs_key)).toString())).toEqual(["IFIT1", "MX1"]);
    expect((await t.store.get(spec.inputs.control_key)).toString()).toBe("control bytes");
  });
});

describe("POST /v1/predictions validation (422) and policy (403)", () => {
  const cases: [string, ReturnType<typeof multipart>, (string | number)[]][] = [
    [
      "target_validation without target",
      multipart({ job_type: "target_validation", degs: '["A"]' }, { dataset_control: H5, dataset_pert: H5 }),
      ["body", "target"],
    ],
    [
      "target_validation with the merged shape",
      multipart({ job_type: "target_validation", target: "STAT1|PROTEIN" }, { dataset: H5 }),
      ["body", "dataset"],
    ],
    ["degs not JSON", splitForm({ degs: "IRF1,GBP1" }), ["body", "degs"]],
    ["degs empty", splitForm({ degs: "[]" }), ["body", "degs"]],
    ["degs not strings", splitForm({ degs: "[1,2]" }), ["body", "degs", 0]],
    [
      "missing degs",
      multipart(
        { job_type: "target_validation", target: "STAT1|PROTEIN" },
        { dataset_control: H5, dataset_pert: H5 },
      ),
      ["body", "degs"],
    ],
    [
      "missing perturbed file",
      multipart(
        { job_type: "target_validation", target: "STAT1|PROTEIN", degs: '["A"]' },
        { dataset_control: H5 },
      ),
      ["body", "dataset_pert"],
    ],
    [
      "no files at all",
      multipart({ job_type: "target_validation", target: "STAT1|PROTEIN", degs: '["A"]' }),
      ["body", "dataset"],
    ],
    [
      "both shapes",
      multipart(
        { job_type: "target_validation", target: "STAT1|PROTEIN", degs: '["A"]' },
        { dataset: H5, dataset_control: H5, dataset_pert: H5 },
      ),
      ["body", "dataset"],
    ],
    ["top_n_causal_degs out of range", splitForm({ top_n_causal_degs: "0" }), ["body", "top_n_causal_degs"]],
    ["min_path_probability zero", splitForm({ min_path_probability: "0" }), ["body", "min_path_probability"]],
    ["non-numeric number", splitForm({ min_path_fraction: "abc" }), ["body", "min_path_fraction"]],
    ["unknown job_type", splitForm({ job_type: "other" }), ["body", "job_type"]],
    ["RNA target", splitForm({ target: "STAT1|RNA" }), ["body", "target"]],
    ["unknown model version", splitForm({ model_version: "v999" }), ["body", "model_version"]],
    ["unexpected file field", multipart({ job_type: "target_validation" }, { other: H5 }), ["body", "other"]],
  ];
  it.each(cases)("%s → 422, nothing stored, reservations released", async (_name, form, loc) => {
    const a = await t.account("external");
    const before = await snapshot(a.id);
    const res = await post(a.key, form);
    expect(res.statusCode).toBe(422);
    const body = res.json<{ detail: { loc: unknown[]; msg: string; type: string }[] }>();
    expect(body.detail.length).toBeGreaterThan(0);
    for (const d of body.detail) expect(Object.keys(d).sort()).toEqual(["loc", "msg", "type"]);
    expect(body.detail.map((d) => d.loc)).toContainEqual(loc);
    expect(await snapshot(a.id)).toEqual(before);
  });

  it("rejects a non-multipart body with 422", async () => {
    const a = await t.account("internal");
    const res = await t.app.inject({
      method: "POST",
      url: "/v1/predictions",
      headers: { "x-api-key": a.key, "content-type": "application/json" },
      payload: "{}",
    });
    expect(res.statusCode).toBe(422);
    expect(res.json().detail[0].loc[0]).toBe("body");
  });

  it("turns a validator rejection into 422 with its code, storing nothing", async () => {
    const a = await t.account("external");
    const before = await snapshot(a.id);
    t.runner.reject = {
      code: "too_many_observations",
      message: "The control file has 1001 observations; at most 1000 are allowed.",
    };
    const res = await post(a.key);
    expect(res.statusCode).toBe(422);
    expect(res.json().detail[0]).toEqual({
      loc: ["body", "dataset_control"],
      msg: "The control file has 1001 observations; at most 1000 are allowed.",
      type: "too_many_observations",
    });
    expect(await snapshot(a.id)).toEqual(before);
  });

  it("answers an external key asking for target_id with 403 job_type_not_allowed", async () => {
    const a = await t.account("external");
    const before = await snapshot(a.id);
    const res = await post(a.key, multipart({}, { dataset: H5 }));
    expect(res.statusCode).toBe(403);
    expect(res.headers["x-service-error-code"]).toBe("job_type_not_allowed");
    expect(res.headers["content-type"]).toContain("application/json");
    expect(await snapshot(a.id)).toEqual(before);
  });

  it("answers a text field above the field cap and a flood of fields with 413", async () => {
    const a = await t.account("external");
    const before = await snapshot(a.id);
    const huge = await post(
      a.key,
      splitForm({ degs: JSON.stringify(Array.from({ length: 300_000 }, (_, i) => `G${i}`)) }),
    );
    expect(huge.statusCode).toBe(413);
    const fields: Record<string, string> = {};
    for (let i = 0; i < 60; i++) fields[`f${i}`] = "x";
    const flood = await post(a.key, multipart(fields));
    expect(flood.statusCode).toBe(413);
    const files = await post(
      a.key,
      multipart({}, { dataset: H5, dataset_control: H5, dataset_pert: H5, extra: H5 }),
    );
    expect(files.statusCode).toBe(413);
    expect(await snapshot(a.id)).toEqual(before);
  });

  it("answers a file above the cap with 413 and leaves nothing behind", async () => {
    const a = await t.account("external");
    const before = await snapshot(a.id);
    const big = { filename: "big.h5ad", content: Buffer.alloc(8192, 1) };
    const res = await post(
      a.key,
      multipart(
        { job_type: "target_validation", target: "STAT1|PROTEIN", degs: '["A"]' },
        { dataset_control: big, dataset_pert: H5 },
      ),
    );
    expect(res.statusCode).toBe(413);
    expect(res.headers["x-service-error-code"]).toBe("payload_too_large");
    expect(await snapshot(a.id)).toEqual(before);
  });
});

describe("POST /v1/predictions limits and check order", () => {
  it("refuses a second in-flight prediction with 429 inflight_limit", async () => {
    const a = await t.account("external");
    expect((await post(a.key)).statusCode).toBe(202);
    const before = await snapshot(a.id);
    const res = await post(a.key);
    expect(res.statusCode).toBe(429);
    expect(res.headers["x-service-error-code"]).toBe("inflight_limit");
    expect(await snapshot(a.id)).toEqual(before);
  });

  it("refuses when the quota is used up with 429 external_prediction_quota_exceeded", async () => {
    const a = await t.account("external", 0);
    const before = await snapshot(a.id);
    const res = await post(a.key);
    expect(res.statusCode).toBe(429);
    expect(res.headers["x-service-error-code"]).toBe("external_prediction_quota_exceeded");
    expect(await snapshot(a.id)).toEqual(before);
  });

  it("rate-limits per key with Retry-After, counting only requests that reach the check", async () => {
    const a = await t.account("internal", 1000);
    // Each 422 reaches (c) and counts; the limit here is 3 per window.
    for (let i = 0; i < 3; i++) expect((await post(a.key, splitForm({ degs: "bad" }))).statusCode).toBe(422);
    const before = await snapshot(a.id);
    const res = await post(a.key);
    expect(res.statusCode).toBe(429);
    expect(res.headers["x-service-error-code"]).toBe("rate_limited");
    expect(Number(res.headers["retry-after"])).toBeGreaterThan(0);
    expect(await snapshot(a.id)).toEqual(before);
    t.clock.advance(61_000);
    expect((await post(a.key)).statusCode).toBe(202);
  });

  it("reports in-flight before quota before rate when several limits are violated", async () => {
    const a = await t.account("external", 1);
    expect((await post(a.key)).statusCode).toBe(202); // in flight now, quota used up
    for (let i = 0; i < 2; i++) await post(a.key, splitForm({ degs: "bad" }));
    const res = await post(a.key);
    expect(res.headers["x-service-error-code"]).toBe("inflight_limit");
    const id = t.dispatcher.specs.at(-1)!.job_id;
    await t.callback({
      job_id: id,
      kind: "prediction",
      attempt: "a1",
      seq: 0,
      status: "completed",
      result_files: [],
      result_sets: [""],
    });
    const res2 = await post(a.key);
    expect(res2.headers["x-service-error-code"]).toBe("external_prediction_quota_exceeded");
  });

  it("never admits more than the in-flight limit under concurrent submissions", async () => {
    const a = await t.account("internal", 1000);
    const results = await Promise.all(Array.from({ length: 12 }, () => post(a.key)));
    const codes = results.map((r) => r.statusCode).sort();
    expect(codes.filter((c) => c === 202)).toHaveLength(1);
    expect(results.filter((r) => r.headers["x-service-error-code"] === "inflight_limit")).toHaveLength(11);
    const s = await snapshot(a.id);
    expect(s.quota).toBe(1);
    expect(s.inflight).toBe(1);
  });

  it("answers 503 when dispatch fails, fails the job non-billably and releases everything", async () => {
    const a = await t.account("external");
    t.dispatcher.fail = true;
    const res = await post(a.key);
    expect(res.statusCode).toBe(503);
    expect(res.headers["x-service-error-code"]).toBe("service_unavailable");
    const s = await snapshot(a.id);
    expect(s.quota).toBe(0);
    expect(s.inflight).toBe(0);
    const list = await t.app.inject({ url: "/v1/predictions", headers: { "x-api-key": a.key } });
    expect(list.json().predictions[0]).toMatchObject({ status: "failed", error_code: "internal_error" });
  });
});

describe("POST /v1/predictions quota under concurrency", () => {
  it("never consumes more than the quota", async () => {
    const t2 = await buildTestApp({ CAUSEWAY_INFLIGHT_LIMIT: "100", CAUSEWAY_RATE_LIMIT: "1000" });
    try {
      const a = await t2.account("external", 4);
      const form = splitForm();
      const results = await Promise.all(
        Array.from({ length: 15 }, () =>
          t2.app.inject({
            method: "POST",
            url: "/v1/predictions",
            headers: { ...form.headers, "x-api-key": a.key },
            payload: form.payload,
          }),
        ),
      );
      expect(results.filter((r) => r.statusCode === 202)).toHaveLength(4);
      expect(
        results.filter((r) => r.headers["x-service-error-code"] === "external_prediction_quota_exceeded"),
      ).toHaveLength(11);
      expect((await getQuota(t2.ctx.db, a.id, 100)).consumed_quota_requests).toBe(4);
    } finally {
      await t2.close();
    }
  });
});
