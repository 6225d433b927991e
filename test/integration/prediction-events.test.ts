/**
 * The prediction event stream across API replicas: a client streams from replica A while the
 * runner's callbacks reach replica B; Redis pub/sub carries the changes between them.
 */
import pino from "pino";
import type { FastifyInstance } from "fastify";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { deriveCallbackKey, signCallback, type RunnerCallback } from "@causeway/contract";
import { buildApp } from "../../api/src/app.ts";
import { loadConfig, type Config } from "../../api/src/config.ts";
import type { AppContext } from "../../api/src/context.ts";
import { closeContext, createContext } from "../../api/src/create-context.ts";
import { createAccount } from "../../api/src/db/accounts.ts";
import { JobEvents } from "../../api/src/events/job-events.ts";
import {
  FakeRunner,
  RecordingDispatcher,
  splitForm,
  validationArtifacts,
} from "../../api/src/testing/helper.ts";
import { openSse, type SseFrame } from "../../api/src/testing/sse.ts";
import { useIsolatedDatabase } from "../harness/vitest.ts";
import { prepareProductionDatabase, productionEnv } from "../builders/production-env.ts";

const db = useIsolatedDatabase("api_events");
const log = pino({ level: "silent" });
const SECRET = "integration-secret-integration-secret-03";

function productionConfig(): Config {
  return loadConfig(productionEnv({ databaseUrl: db.url, callbackSecret: SECRET }));
}

interface Replica {
  app: FastifyInstance;
  ctx: AppContext;
  url: string;
}

const replicas: Replica[] = [];

beforeAll(async () => {
  await prepareProductionDatabase(db.url);
  for (let i = 0; i < 2; i++) {
    const config = productionConfig();
    const events = new JobEvents({ redisUrl: config.redisUrl, heartbeatMs: 200, log });
    await events.whenReady();
    const ctx = await createContext(config, log, {
      dispatcher: new RecordingDispatcher(),
      runner: new FakeRunner(),
      events,
    });
    const app = await buildApp(ctx, { logger: false });
    const url = await app.listen({ host: "127.0.0.1", port: 0 });
    replicas.push({ app, ctx, url });
  }
});

afterAll(async () => {
  for (const r of replicas) {
    await r.app.close();
    await closeContext(r.ctx);
  }
});

async function callback(r: Replica, cb: RunnerCallback): Promise<number> {
  const raw = JSON.stringify(cb);
  const ts = Math.floor(Date.now() / 1000);
  const res = await r.app.inject({
    method: "POST",
    url: `/internal/v1/jobs/${cb.kind}/${cb.job_id}/callback`,
    headers: {
      "content-type": "application/json",
      "x-causeway-timestamp": String(ts),
      "x-causeway-signature": signCallback(deriveCallbackKey(SECRET, cb.job_id), ts, raw),
    },
    payload: raw,
  });
  return res.statusCode;
}

const isEvent = (f: SseFrame) => f.event !== undefined;

describe("prediction events across replicas (Redis pub/sub)", () => {
  it("a stream on replica A sees the callbacks applied on replica B, to the terminal event", async () => {
    const [a, b] = [replicas[0]!, replicas[1]!];
    const { apiKey } = await createAccount(a.ctx.db, { name: "sse", tier: "internal" });
    const form = splitForm();
    const submitted = await a.app.inject({
      method: "POST",
      url: "/v1/predictions",
      headers: { ...form.headers, "x-api-key": apiKey },
      payload: form.payload,
    });
    expect(submitted.statusCode).toBe(202);
    const id = submitted.json<{ prediction_id: string }>().prediction_id;

    const s = await openSse(`${a.url}/v1/predictions/${id}/events`, { "x-api-key": apiKey });
    const [first] = (await s.until(isEvent)).filter(isEvent);
    expect(first!.event).toBe("status");
    expect(JSON.parse(first!.data!).status).toBe("pending");

    const common = { job_id: id, kind: "prediction" as const, attempt: "pod-1" };
    expect(
      await callback(b, {
        ...common,
        seq: 1,
        status: "processing",
        processing_step: "de_completed",
        progress_pct: 35,
      }),
    ).toBe(200);
    const [progress] = (await s.until(isEvent)).filter(isEvent);
    expect(JSON.parse(progress!.data!)).toMatchObject({
      status: "processing",
      processing_step: "de_completed",
      progress_pct: 35,
    });

    const files = [];
    for (const [name, body] of Object.entries(validationArtifacts())) {
      const key = `jobs/prediction/${id}/pod-1/${name}`;
      await b.ctx.store.put(key, body);
      files.push({ name, key });
    }
    expect(
      await callback(b, { ...common, seq: 2, status: "completed", result_files: files, result_sets: [""] }),
    ).toBe(200);
    const rest = (await s.until(() => false)).filter(isEvent);
    expect(rest.map((f) => [f.id, f.event])).toEqual([["3", "completed"]]);
    expect(JSON.parse(rest[0]!.data!).status).toBe("completed");
  });
});
