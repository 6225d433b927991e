/**
 * The API on its production parts: PostgreSQL (migrations with node-pg-migrate), Redis (Lua
 * limit scripts) and an S3 server, from test/harness. Two app instances share them to show
 * that limits hold across replicas. The runner pieces and the dispatcher are the unit tests'
 * fakes: this file is about the data plane, not the science.
 */
import pino from "pino";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { buildApp } from "../../api/src/app.ts";
import { loadConfig, type Config } from "../../api/src/config.ts";
import type { AppContext } from "../../api/src/context.ts";
import { closeContext, createContext } from "../../api/src/create-context.ts";
import { createAccount, getQuota } from "../../api/src/db/accounts.ts";
import { Database } from "../../api/src/db/database.ts";
import { migrate } from "../../api/src/db/migrate.ts";
import { registerModel } from "../../api/src/db/models.ts";
import { RedisLimitStore } from "../../api/src/limits/redis-store.ts";
import {
  FakeRunner,
  RecordingDispatcher,
  splitForm,
  validationArtifacts,
} from "../../api/src/testing/helper.ts";
import { signCallback, deriveCallbackKey, type RunnerCallback } from "@causeway/contract";
import { S3ObjectStore } from "@causeway/runner/storage/s3";
import { uniquePrefix } from "../harness/isolation.ts";
import { useIsolatedDatabase } from "../harness/vitest.ts";
import { productionEnv } from "../builders/production-env.ts";
import type { FastifyInstance } from "fastify";

const db = useIsolatedDatabase("api_production");
const log = pino({ level: "silent" });
const SECRET = "integration-secret-integration-secret-01";

function productionConfig(extra: Record<string, string> = {}): Config {
  return loadConfig({ ...productionEnv({ databaseUrl: db.url, callbackSecret: SECRET }), ...extra });
}

interface Instance {
  app: FastifyInstance;
  ctx: AppContext;
  dispatcher: RecordingDispatcher;
}

async function instance(
  extra: Record<string, string> = {},
  overrides: { limits?: RedisLimitStore; db?: Database; store?: S3ObjectStore } = {},
): Promise<Instance> {
  const dispatcher = new RecordingDispatcher();
  const ctx = await createContext(productionConfig(extra), log, {
    dispatcher,
    runner: new FakeRunner(),
    ...overrides,
  });
  const app = await buildApp(ctx, { logger: false });
  await app.ready();
  return { app, ctx, dispatcher };
}

const instances: Instance[] = [];
let a: Instance;
let b: Instance;

beforeAll(async () => {
  const config = productionConfig();
  const admin = new Database({
    connectionString: config.database.kind === "postgres" ? config.database.url : "",
  });
  expect(await migrate(admin)).toEqual([
    "1763700000000_init",
    "1763800000000_idempotency-keys",
    "1763900000000_webhooks",
    "1764000000000_job-warnings",
    "1764100000000_quota-charges",
  ]);
  expect(await migrate(admin)).toEqual([]); // idempotent
  await registerModel(admin, "v1", { version: "v1" }, true);
  await admin.close();
  a = await instance();
  b = await instance();
  instances.push(a, b);
});

afterAll(async () => {
  for (const i of instances) {
    await i.app.close();
    await closeContext(i.ctx);
  }
});

async function post(i: Instance, key: string) {
  const form = splitForm();
  return i.app.inject({
    method: "POST",
    url: "/v1/predictions",
    headers: { ...form.headers, "x-api-key": key },
    payload: form.payload,
  });
}

async function callback(i: Instance, cb: RunnerCallback) {
  const raw = JSON.stringify(cb);
  const ts = Math.floor(Date.now() / 1000);
  return i.app.inject({
    method: "POST",
    url: `/internal/v1/jobs/${cb.kind}/${cb.job_id}/callback`,
    headers: {
      "content-type": "application/json",
      "x-causeway-timestamp": String(ts),
      "x-causeway-signature": signCallback(deriveCallbackKey(SECRET, cb.job_id), ts, raw),
    },
    payload: raw,
  });
}

describe("API on PostgreSQL, Redis and S3", () => {
  it("accepts a submission, stores its inputs in S3 and serves S3-presigned artifact links", async () => {
    const acct = await createAccount(a.ctx.db, { name: "s3", tier: "internal" });
    const res = await post(a, acct.apiKey);
    expect(res.statusCode).toBe(202);
    const id = res.json<{ prediction_id: string }>().prediction_id;
    const spec = a.dispatcher.specs.at(-1)!;
    expect(spec.kind === "prediction" && spec.inputs.shape === "split").toBe(true);
    if (spec.kind === "prediction" && spec.inputs.shape === "split") {
      expect(JSON.parse((await a.ctx.store.get(spec.inputs.degs_key)).toString())).toEqual(["IRF1", "GBP1"]);
      expect(await a.ctx.store.exists(spec.inputs.control_key)).toBe(true);
    }
    const files = [];
    for (const [name, body] of Object.entries(validationArtifacts())) {
      const key = `${spec.output_prefix}/local-1/${name}`;
      await a.ctx.store.put(key, body);
      files.push({ name, key });
    }
    // The callback reaches the other replica: state lives in PostgreSQL only.
    const cb = await callback(b, {
      job_id: id,
      kind: "prediction",
      attempt: "local-1",
      seq: 9,
      status: "completed",
      result_files: files,
      result_sets: [""],
    });
    expect(cb.statusCode).toBe(200);
    const status = (
      await a.app.inject({ url: `/v1/predictions/${id}`, headers: { "x-api-key": acct.apiKey } })
    ).json();
    expect(status.status).toBe("completed");
    expect(status.results[0].id).toBe("STAT1|PROTEIN");
    const link = status.artifacts.find((x: { name: string }) => x.name === "mapped_degs.json").url as string;
    expect(link).toContain("X-Amz-Signature");
    expect(link).not.toContain(id);
    expect(link).not.toContain(acct.account.id);
    const download = await fetch(link);
    expect(download.status).toBe(200);
    expect(await download.json()).toEqual(["IRF1", "GBP1", "OTHER"]);
    expect(download.headers.get("content-disposition")).toContain("mapped_degs.json");
  });

  it("never admits two in-flight predictions across two replicas sharing Redis", async () => {
    const acct = await createAccount(a.ctx.db, { name: "race", tier: "external" });
    const results = await Promise.all(
      Array.from({ length: 10 }, (_, i) => post(i % 2 === 0 ? a : b, acct.apiKey)),
    );
    expect(results.filter((r) => r.statusCode === 202)).toHaveLength(1);
    expect(results.filter((r) => r.headers["x-service-error-code"] === "inflight_limit")).toHaveLength(9);
    expect((await getQuota(a.ctx.db, acct.account.id, 100)).consumed_quota_requests).toBe(1);
  });

  it("never consumes more than the quota under concurrent submissions on PostgreSQL", async () => {
    const c = await instance({ CAUSEWAY_INFLIGHT_LIMIT: "100", CAUSEWAY_RATE_LIMIT: "1000" });
    instances.push(c);
    const acct = await createAccount(c.ctx.db, { name: "quota", tier: "external", quota: 3 });
    const results = await Promise.all(Array.from({ length: 12 }, () => post(c, acct.apiKey)));
    expect(results.filter((r) => r.statusCode === 202)).toHaveLength(3);
    expect((await getQuota(c.ctx.db, acct.account.id, 100)).consumed_quota_requests).toBe(3);
  });

  it("rate-limits per key through the Redis sliding window with Retry-After", async () => {
    const c = await instance({ CAUSEWAY_INFLIGHT_LIMIT: "100", CAUSEWAY_RATE_LIMIT: "2" });
    instances.push(c);
    const acct = await createAccount(c.ctx.db, { name: "rate", tier: "external", quota: 100 });
    expect((await post(c, acct.apiKey)).statusCode).toBe(202);
    expect((await post(c, acct.apiKey)).statusCode).toBe(202);
    const third = await post(c, acct.apiKey);
    expect(third.statusCode).toBe(429);
    expect(third.headers["x-service-error-code"]).toBe("rate_limited");
    expect(Number(third.headers["retry-after"])).toBeGreaterThan(0);
    // Nothing of the refused request stayed: quota back to 2.
    expect((await getQuota(c.ctx.db, acct.account.id, 100)).consumed_quota_requests).toBe(2);
  });

  it("applies concurrent duplicate failure callbacks once and refunds the quota once", async () => {
    const acct = await createAccount(a.ctx.db, { name: "dup", tier: "external", quota: 5 });
    const id = (await post(a, acct.apiKey)).json<{ prediction_id: string }>().prediction_id;
    const cb: RunnerCallback = {
      job_id: id,
      kind: "prediction",
      attempt: "p1",
      seq: 2,
      status: "failed",
      error_code: "invalid_h5ad",
      error_message: "bad",
      billable: false,
      result_files: [],
    };
    const results = await Promise.all(
      Array.from({ length: 10 }, (_, i) => callback(i % 2 === 0 ? a : b, cb)),
    );
    expect(results.map((r) => r.json<{ applied: boolean }>().applied).filter(Boolean)).toHaveLength(1);
    expect((await getQuota(a.ctx.db, acct.account.id, 100)).consumed_quota_requests).toBe(0);
    // The in-flight slot is free again on both replicas.
    expect((await post(b, acct.apiKey)).statusCode).toBe(202);
  });
});

describe("outages", () => {
  it("Redis down: POST fails closed with 503 within 2 s, GETs still work", async () => {
    const dead = new RedisLimitStore("redis://127.0.0.1:1");
    const c = await instance({}, { limits: dead });
    instances.push(c);
    const acct = await createAccount(c.ctx.db, { name: "redis-down", tier: "external" });
    const t0 = Date.now();
    const res = await post(c, acct.apiKey);
    expect(res.statusCode).toBe(503);
    expect(res.headers["x-service-error-code"]).toBe("service_unavailable");
    expect(res.headers["retry-after"]).toBeDefined();
    expect(Date.now() - t0).toBeLessThan(2000);
    expect((await getQuota(c.ctx.db, acct.account.id, 100)).consumed_quota_requests).toBe(0);
    const list = await c.app.inject({ url: "/v1/predictions", headers: { "x-api-key": acct.apiKey } });
    expect(list.statusCode).toBe(200);
    // Every replica shares Redis: readiness reports it but stays up, so the Service keeps its
    // endpoints and clients get this 503 with its code rather than the ingress's.
    const ready = await c.app.inject({ url: "/readyz" });
    expect(ready.statusCode).toBe(200);
    expect(ready.json()).toMatchObject({
      status: "degraded",
      checks: { database: "ok", limits: "unavailable" },
    });
  });

  it("PostgreSQL down: requests get 503 within the connect timeout, never a 500 with internals", async () => {
    const dead = new Database({
      connectionString: "postgres://postgres@127.0.0.1:1/none",
      connectionTimeoutMillis: 1000,
    });
    const c = await instance({}, { db: dead });
    instances.push(c);
    const t0 = Date.now();
    const res = await c.app.inject({ url: "/v1/predictions", headers: { "x-api-key": "cw_whatever" } });
    expect(res.statusCode).toBe(503);
    expect(res.json()).toEqual({ detail: "The service is temporarily unavailable; retry later." });
    expect(Date.now() - t0).toBeLessThan(2500);
    const ready = await c.app.inject({ url: "/readyz" });
    expect(ready.statusCode).toBe(503);
    expect(ready.json()).toMatchObject({ status: "not_ready", checks: { database: "unavailable" } });
  });

  it("S3 down: POST answers 503 and gives back the quota and the in-flight slot; status reads 503", async () => {
    const dead = new S3ObjectStore({
      bucket: "nowhere",
      region: "us-east-1",
      endpoint: "http://127.0.0.1:1",
      forcePathStyle: true,
      accessKeyId: "x",
      secretAccessKey: "y",
    });
    const c = await instance({}, { store: dead });
    instances.push(c);
    const acct = await createAccount(c.ctx.db, { name: "s3-down", tier: "internal" });
    const res = await post(c, acct.apiKey);
    expect(res.statusCode).toBe(503);
    expect((await getQuota(c.ctx.db, acct.account.id, 100)).consumed_quota_requests).toBe(0);
    expect(c.dispatcher.specs).toHaveLength(0);
    // The slot is free: the same account submits at once through a healthy replica.
    expect((await post(a, acct.apiKey)).statusCode).toBe(202);
    const id = a.dispatcher.specs.at(-1)!.job_id;
    await callback(a, {
      job_id: id,
      kind: "prediction",
      attempt: "z",
      seq: 1,
      status: "completed",
      result_files: [{ name: "target_scores.tsv", key: "results/x/target_scores.tsv" }],
      result_sets: [""],
    });
    const st = await c.app.inject({ url: `/v1/predictions/${id}`, headers: { "x-api-key": acct.apiKey } });
    expect(st.statusCode).toBe(503);
    expect(st.body).not.toContain("results/x");
    const ready = await c.app.inject({ url: "/readyz" });
    expect(ready.statusCode).toBe(200);
    expect(ready.json()).toMatchObject({ status: "degraded", checks: { storage: "unavailable" } });
  });
});

describe("RedisLimitStore scripts", () => {
  const store = new RedisLimitStore(inject("redisUrl"));
  const p = uniquePrefix("limits");
  afterAll(() => store.close());

  it("slides the window and reports Retry-After", async () => {
    for (let i = 0; i < 3; i++) expect((await store.hit(`${p}rate`, 3, 60_000, 1000 + i)).allowed).toBe(true);
    expect(await store.hit(`${p}rate`, 3, 60_000, 30_000)).toEqual({ allowed: false, retryAfterSeconds: 31 });
    expect((await store.hit(`${p}rate`, 3, 60_000, 61_001)).allowed).toBe(true);
  });

  it("admits exactly `limit` of many concurrent reservations, refreshes, expires and releases", async () => {
    const results = await Promise.all(
      Array.from({ length: 50 }, (_, i) => store.reserve(`${p}set`, `m${i}`, 2, 1000, 0)),
    );
    expect(results.filter(Boolean)).toHaveLength(2);
    const held = await store.reservations(`${p}set`, 10);
    expect(held).toHaveLength(2);
    expect(await store.reserve(`${p}set`, held[0]!, 2, 1000, 900)).toBe(true); // refresh to 1900
    expect(await store.reserve(`${p}set`, "late", 2, 1000, 1500)).toBe(true); // the other expired at 1000
    expect(await store.reserve(`${p}set`, "later", 2, 1000, 1600)).toBe(false);
    await store.release(`${p}set`, "late");
    await store.release(`${p}set`, "late");
    expect(await store.reserve(`${p}set`, "later", 2, 1000, 1700)).toBe(true);
  });
});
