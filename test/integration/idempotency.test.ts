/**
 * Idempotent submissions on the production parts: two API replicas on one PostgreSQL (the
 * idempotency_keys table) and one Redis (limits), racing retries of one request.
 */
import pino from "pino";
import type { FastifyInstance } from "fastify";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { buildApp } from "../../api/src/app.ts";
import { loadConfig, type Config } from "../../api/src/config.ts";
import type { AppContext } from "../../api/src/context.ts";
import { closeContext, createContext } from "../../api/src/create-context.ts";
import { createAccount, getQuota } from "../../api/src/db/accounts.ts";
import { FakeRunner, RecordingDispatcher, splitForm } from "../../api/src/testing/helper.ts";
import { useIsolatedDatabase } from "../harness/vitest.ts";
import { prepareProductionDatabase, productionEnv } from "../builders/production-env.ts";

const db = useIsolatedDatabase("api_idempotency");
const log = pino({ level: "silent" });

function productionConfig(): Config {
  return loadConfig({
    ...productionEnv({ databaseUrl: db.url, callbackSecret: "integration-secret-integration-secret-02" }),
    CAUSEWAY_INFLIGHT_LIMIT: "100",
    CAUSEWAY_RATE_LIMIT: "1000",
  });
}

interface Instance {
  app: FastifyInstance;
  ctx: AppContext;
  dispatcher: RecordingDispatcher;
}

const replicas: Instance[] = [];

beforeAll(async () => {
  await prepareProductionDatabase(db.url);
  for (let i = 0; i < 2; i++) {
    const dispatcher = new RecordingDispatcher();
    const ctx = await createContext(productionConfig(), log, { dispatcher, runner: new FakeRunner() });
    const app = await buildApp(ctx, { logger: false });
    await app.ready();
    replicas.push({ app, ctx, dispatcher });
  }
});

afterAll(async () => {
  for (const r of replicas) {
    await r.app.close();
    await closeContext(r.ctx);
  }
});

const dispatched = () => replicas.reduce((n, r) => n + r.dispatcher.specs.length, 0);

async function predictionRows(ctx: AppContext, accountId: string): Promise<number> {
  const { rows } = await ctx.db.query<{ n: number }>(
    "SELECT count(*)::int AS n FROM predictions WHERE account_id = $1",
    [accountId],
  );
  return rows[0]!.n;
}

describe("Idempotency-Key on PostgreSQL across replicas", () => {
  it("parallel retries of one request: exactly one job and one quota unit, every answer the same or 409", async () => {
    const { account, apiKey } = await createAccount(replicas[0]!.ctx.db, { name: "idem", tier: "external" });
    const before = dispatched();
    const results = await Promise.all(
      Array.from({ length: 12 }, (_, i) => {
        const form = splitForm(); // each retry has its own multipart boundary
        return replicas[i % 2]!.app.inject({
          method: "POST",
          url: "/v1/predictions",
          headers: { ...form.headers, "x-api-key": apiKey, "idempotency-key": '"batch-42"' },
          payload: form.payload,
        });
      }),
    );
    const accepted = results.filter((r) => r.statusCode === 202);
    const busy = results.filter((r) => r.statusCode === 409);
    expect(accepted.length + busy.length).toBe(results.length);
    expect(accepted.filter((r) => r.headers["idempotent-replayed"] === undefined)).toHaveLength(1);
    expect(new Set(accepted.map((r) => r.json<{ prediction_id: string }>().prediction_id)).size).toBe(1);
    for (const r of busy) expect(r.headers["x-service-error-code"]).toBe("idempotency_key_in_use");
    expect(dispatched() - before).toBe(1);
    expect(await predictionRows(replicas[0]!.ctx, account.id)).toBe(1);
    expect((await getQuota(replicas[0]!.ctx.db, account.id, 100)).consumed_quota_requests).toBe(1);

    // Once the first request finished, every retry is answered from the stored response.
    const id = accepted[0]!.json<{ prediction_id: string }>().prediction_id;
    const later = await Promise.all(
      replicas.map((r) => {
        const form = splitForm();
        return r.app.inject({
          method: "POST",
          url: "/v1/predictions",
          headers: { ...form.headers, "x-api-key": apiKey, "idempotency-key": "batch-42" },
          payload: form.payload,
        });
      }),
    );
    for (const r of later) {
      expect(r.statusCode).toBe(202);
      expect(r.headers["idempotent-replayed"]).toBe("true");
      expect(r.json()).toEqual({ prediction_id: id, status: "pending", estimated_completion: null });
    }
    expect(dispatched() - before).toBe(1);
    expect((await getQuota(replicas[0]!.ctx.db, account.id, 100)).consumed_quota_requests).toBe(1);
  });

  it("a request that failed validation frees its key for the corrected retry", async () => {
    const { account, apiKey } = await createAccount(replicas[0]!.ctx.db, { name: "idem2", tier: "external" });
    const send = (r: Instance, degs: string) => {
      const form = splitForm({ degs });
      return r.app.inject({
        method: "POST",
        url: "/v1/predictions",
        headers: { ...form.headers, "x-api-key": apiKey, "idempotency-key": "fix-me" },
        payload: form.payload,
      });
    };
    expect((await send(replicas[0]!, "not json")).statusCode).toBe(422);
    expect((await getQuota(replicas[0]!.ctx.db, account.id, 100)).consumed_quota_requests).toBe(0);
    const fixed = await send(replicas[1]!, '["IRF1"]');
    expect(fixed.statusCode).toBe(202);
    expect(fixed.headers["idempotent-replayed"]).toBeUndefined();
    expect((await getQuota(replicas[0]!.ctx.db, account.id, 100)).consumed_quota_requests).toBe(1);
  });
});
