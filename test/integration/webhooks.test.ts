/**
 * Completion webhooks on real PostgreSQL: the outbox survives a restart, a receiver that fails
 * twice gets the same signed event a third time, and a delivery to a refused address never
 * leaves the process.
 */
import { createHmac } from "node:crypto";
import { createServer, type IncomingHttpHeaders, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import pino from "pino";
import type { FastifyInstance } from "fastify";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { buildApp } from "../../api/src/app.ts";
import { loadConfig, type Config } from "../../api/src/config.ts";
import type { AppContext } from "../../api/src/context.ts";
import { closeContext, createContext } from "../../api/src/create-context.ts";
import { createAccount } from "../../api/src/db/accounts.ts";
import { MemoryLimitStore } from "../../api/src/limits/memory-store.ts";
import { FakeRunner, RecordingDispatcher, splitForm } from "../../api/src/testing/helper.ts";
import { WebhookDeliverer } from "../../api/src/webhooks/deliverer.ts";
import { deliveryOf } from "../../api/src/db/webhook-deliveries.ts";
import { WebhookSecretBox, rotateWebhookSecret } from "../../api/src/webhooks/secrets.ts";
import { useIsolatedDatabase } from "../harness/vitest.ts";
import { prepareProductionDatabase, productionEnv } from "../builders/production-env.ts";

const db = useIsolatedDatabase("api_webhooks");
const log = pino({ level: process.env.TEST_LOG ?? "silent" });
const SECRET = "integration-secret-integration-secret-04";

function config(extra: Record<string, string> = {}): Config {
  return loadConfig({
    ...productionEnv({ databaseUrl: db.url, callbackSecret: SECRET, redis: false }),
    CAUSEWAY_WEBHOOK_ALLOW_HOSTS: "127.0.0.1",
    CAUSEWAY_WEBHOOK_BACKOFF_MS: "100",
    CAUSEWAY_WEBHOOK_POLL_MS: "50",
    ...extra,
  });
}

interface Received {
  headers: IncomingHttpHeaders;
  body: string;
  answered: number;
}

/** A receiver that answers 500 to its first `failures` requests, then 204. */
async function receiver(failures: number): Promise<{ url: string; got: Received[]; server: Server }> {
  const got: Received[] = [];
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => {
      const answered = got.length < failures ? 500 : 204;
      got.push({ headers: req.headers, body: Buffer.concat(chunks).toString("utf8"), answered });
      res.writeHead(answered).end();
    });
  });
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/hooks/causeway`, got, server };
}

const servers: Server[] = [];
const contexts: { app: FastifyInstance; ctx: AppContext }[] = [];

async function instance(extra: Record<string, string> = {}) {
  const ctx = await createContext(config(extra), log, {
    dispatcher: new RecordingDispatcher(),
    runner: new FakeRunner(),
    limits: new MemoryLimitStore(),
  });
  const app = await buildApp(ctx, { logger: false });
  await app.ready();
  contexts.push({ app, ctx });
  return { app, ctx };
}

beforeAll(async () => {
  await prepareProductionDatabase(db.url);
});

afterAll(async () => {
  for (const c of contexts) {
    await c.app.close();
    await closeContext(c.ctx);
  }
  for (const s of servers) s.close();
});

async function submitWith(app: FastifyInstance, key: string, callbackUrl: string) {
  const form = splitForm({ callback_url: callbackUrl });
  return app.inject({
    method: "POST",
    url: "/v1/predictions",
    headers: { ...form.headers, "x-api-key": key },
    payload: form.payload,
  });
}

describe("completion webhooks on PostgreSQL", () => {
  it("are recorded at submission, survive a restart, and are retried with backoff until delivered", async () => {
    const first = await instance();
    const { account, apiKey } = await createAccount(first.ctx.db, { name: "hooks", tier: "internal" });
    const secret = (await rotateWebhookSecret(first.ctx.db, new WebhookSecretBox(SECRET), account.id))!;
    expect(secret).toMatch(/^whsec_/);
    const hook = await receiver(2);
    servers.push(hook.server);

    const res = await submitWith(first.app, apiKey, hook.url);
    expect(res.statusCode).toBe(202);
    const id = res.json<{ prediction_id: string }>().prediction_id;
    // The job fails while no deliverer runs; then the process goes away.
    await first.ctx.jobs.fail("prediction", id, "internal_error", "The job could not be queued.");
    expect(await deliveryOf(first.ctx.db, id)).toMatchObject({ attempts: 0, delivered_at: null });

    // A new process with its own deliverer picks the delivery up from the outbox.
    const second = await instance();
    const deliverer = new WebhookDeliverer({
      db: second.ctx.db,
      box: new WebhookSecretBox(SECRET),
      config: second.ctx.config.webhooks,
      now: () => new Date(),
      log,
    });
    deliverer.start();
    try {
      await expect
        .poll(async () => (await deliveryOf(second.ctx.db, id))?.delivered_at ?? null, { timeout: 15_000 })
        .not.toBeNull();
    } finally {
      await deliverer.stop();
    }
    expect(hook.got.map((g) => g.answered)).toEqual([500, 500, 204]);
    expect(await deliveryOf(second.ctx.db, id)).toMatchObject({ attempts: 3, last_error: null });
    const eventIds = new Set(hook.got.map((g) => g.headers["x-causeway-event-id"]));
    expect(eventIds.size).toBe(1);
    for (const g of hook.got) {
      const ts = g.headers["x-causeway-timestamp"] as string;
      const expected = createHmac("sha256", secret).update(`${ts}.${g.body}`).digest("hex");
      expect(g.headers["x-causeway-signature"]).toBe(`sha256=${expected}`);
      expect(JSON.parse(g.body)).toMatchObject({
        event_id: [...eventIds][0],
        type: "prediction.failed",
        data: { prediction_id: id, status: "failed", error_code: "internal_error" },
      });
    }
  });

  it("refuses private callback URLs at submission unless allowed, and at delivery (rebinding)", async () => {
    const strict = await instance({ CAUSEWAY_WEBHOOK_ALLOW_HOSTS: "" });
    const { account, apiKey } = await createAccount(strict.ctx.db, { name: "ssrf", tier: "internal" });
    const noSecret = await submitWith(strict.app, apiKey, "https://example.org/hook");
    expect(noSecret.statusCode).toBe(422);
    expect(noSecret.json().detail[0]).toMatchObject({
      loc: ["body", "callback_url"],
      msg: expect.stringContaining("webhook secret"),
    });
    await rotateWebhookSecret(strict.ctx.db, new WebhookSecretBox(SECRET), account.id);
    for (const url of [
      "http://127.0.0.1:9/x",
      "http://localhost/x",
      "http://169.254.169.254/latest",
      "http://[::1]/x",
      "http://10.0.0.1/x",
    ]) {
      const res = await submitWith(strict.app, apiKey, url);
      expect([url, res.statusCode]).toEqual([url, 422]);
      expect(res.json().detail[0].msg).toMatch(/non-public address/);
    }
    for (const url of ["ftp://example.org/x", "not a url", "https://user:pw@example.org/x"]) {
      const res = await submitWith(strict.app, apiKey, url);
      expect([url, res.statusCode]).toEqual([url, 422]);
    }

    // Accepted while the host was allowed; the policy at delivery no longer allows it.
    const open = await instance();
    const hook = await receiver(0);
    servers.push(hook.server);
    const res = await submitWith(open.app, apiKey, hook.url);
    expect(res.statusCode).toBe(202);
    const id = res.json<{ prediction_id: string }>().prediction_id;
    await open.ctx.jobs.fail("prediction", id, "internal_error", "stopped");
    const guarded = new WebhookDeliverer({
      db: strict.ctx.db,
      box: new WebhookSecretBox(SECRET),
      config: strict.ctx.config.webhooks,
      now: () => new Date(),
      log,
    });
    expect(await guarded.runOnce()).toBe(1);
    expect(hook.got).toHaveLength(0);
    expect((await deliveryOf(strict.ctx.db, id))!.last_error).toMatch(/non-public address/);
  });
});
