/**
 * Start-up imports in the background, against the embedded database and the real routes: a
 * submission for a version that is still importing is accepted and waits, the readiness route
 * reports progress, and the job is dispatched when the import ends. The import itself is a
 * stand-in the test settles (the real one takes seconds and is tested in runner/src/model).
 */
import pino from "pino";
import { afterEach, describe, expect, it } from "vitest";
import type { ScoringVersion } from "@causeway/contract";
import { getModel } from "../../db/models.ts";
import { gateOnModelImports } from "../../dispatch/model-gate.ts";
import { buildTestApp, FakeRunner, splitForm, type TestApp } from "../../testing/helper.ts";
import { ModelImports } from "./model-imports.ts";

let t: TestApp | undefined;
afterEach(async () => {
  await t?.close();
  t = undefined;
});

/** A runner whose import of each version ends when the test says so. */
class SlowImports extends FakeRunner {
  readonly waiting = new Map<string, { done: () => void; fail: (e: Error) => void }>();
  override importModel(options?: { version: string; onProgress?: (m: string) => void }): Promise<unknown> {
    const version = options?.version ?? "";
    options?.onProgress?.(`importing model ${version} from /a/server/path`);
    options?.onProgress?.("model import: 3/26 column blocks");
    return new Promise((resolve, reject) =>
      this.waiting.set(version, { done: () => resolve({ version }), fail: reject }),
    );
  }
}

async function setup(versions: { version: string; scoring: ScoringVersion }[]) {
  t = await buildTestApp();
  const app = t;
  const runner = new SlowImports();
  const log = pino({ level: "silent" });
  const imports = new ModelImports(
    { db: app.ctx.db, store: app.store, runner },
    { networkPath: "network.tsv", hgncDir: "hgnc", defaultVersion: undefined, versions, cacheDir: undefined },
    () => {},
  );
  app.ctx.modelImports = imports;
  app.ctx.dispatcher = gateOnModelImports(app.dispatcher, {
    imports,
    db: app.ctx.db,
    jobs: app.ctx.jobs,
    events: app.ctx.events,
    log,
  });
  return { app, runner, imports };
}

const flush = async () => {
  for (let i = 0; i < 20; i++) await new Promise((r) => setImmediate(r));
};

async function submitFor(app: TestApp, key: string, version: string) {
  const form = splitForm({ model_version: version });
  return app.app.inject({
    method: "POST",
    url: "/v1/predictions",
    headers: { ...form.headers, "x-api-key": key },
    payload: form.payload,
  });
}

describe("ModelImports", () => {
  it("accepts a submission for a version still importing; it waits, then runs when the import ends", async () => {
    const { app, runner, imports } = await setup([{ version: "v9", scoring: "v2" }]);
    const { key } = await app.account("internal");
    void imports.start();
    await flush();

    const models = await app.app.inject({ method: "GET", url: "/readyz/models" });
    expect(models.statusCode).toBe(503);
    // Progress counts only: the route is public and never shows the server's paths.
    expect(models.json()).toEqual({
      status: "importing",
      versions: [
        { version: "v9", scoring: "v2", state: "importing", message: "model import: 3/26 column blocks" },
      ],
    });

    const res = await submitFor(app, key, "v9");
    expect(res.statusCode).toBe(202);
    const id = (res.json() as { prediction_id: string }).prediction_id;
    const status = await app.app.inject({
      method: "GET",
      url: `/v1/predictions/${id}`,
      headers: { "x-api-key": key },
    });
    expect(status.json()).toMatchObject({ status: "pending", processing_step: "waiting_for_model" });
    expect(app.dispatcher.specs).toHaveLength(0);

    runner.waiting.get("v9")?.done();
    await imports.start();
    await flush();
    expect(await getModel(app.ctx.db, "v9")).not.toBeNull();
    expect(app.dispatcher.specs.map((s) => s.job_id)).toEqual([id]);
    expect((await app.app.inject({ method: "GET", url: "/readyz/models" })).statusCode).toBe(200);
  });

  it("a version that is neither registered nor importing is still refused", async () => {
    const { app } = await setup([{ version: "v9", scoring: "v2" }]);
    const { key } = await app.account("internal");
    const res = await submitFor(app, key, "v404");
    expect(res.statusCode).toBe(422);
  });

  it("a failed import fails the jobs waiting for it and the route says failed", async () => {
    const { app, runner, imports } = await setup([{ version: "v9", scoring: "v2" }]);
    const { key } = await app.account("internal");
    void imports.start();
    await flush();
    const id = ((await submitFor(app, key, "v9")).json() as { prediction_id: string }).prediction_id;
    runner.waiting.get("v9")?.fail(new Error("ENOENT: /a/server/path/network.tsv"));
    await imports.start();
    await flush();
    const status = await app.app.inject({
      method: "GET",
      url: `/v1/predictions/${id}`,
      headers: { "x-api-key": key },
    });
    expect(status.json()).toMatchObject({ status: "failed", error_code: "internal_error" });
    const models = await app.app.inject({ method: "GET", url: "/readyz/models" });
    expect(models.statusCode).toBe(503);
    expect(JSON.stringify(models.json())).not.toContain("/a/server/path");
    expect(models.json()).toMatchObject({ status: "failed" });
  });

  it("imports the default version first, then the others in the background, offering the versions already in for reuse", async () => {
    t = await buildTestApp();
    const calls: { version: string; reuseFrom?: readonly string[]; background?: boolean }[] = [];
    class Recording extends FakeRunner {
      override importModel(options?: {
        version: string;
        reuseFrom?: readonly string[];
        background?: boolean;
      }): Promise<unknown> {
        const { version = "", reuseFrom, background } = options ?? { version: "" };
        calls.push({ version, reuseFrom, background });
        return Promise.resolve({ version });
      }
    }
    const imports = new ModelImports(
      { db: t.ctx.db, store: t.store, runner: new Recording() },
      {
        networkPath: "network.tsv",
        hgncDir: "hgnc",
        defaultVersion: "v3",
        versions: [
          { version: "v1", scoring: "v1" },
          { version: "v3", scoring: "v3" },
          { version: "v2", scoring: "v2" },
        ],
        cacheDir: undefined,
      },
      () => {},
    );
    await imports.start();
    // The test app holds v1 already (nothing to import); it is offered for reuse all the same.
    expect(calls).toEqual([
      { version: "v3", reuseFrom: [], background: undefined },
      { version: "v2", reuseFrom: ["v3", "v1"], background: true },
    ]);
    expect(imports.report().ready).toBe(true);
  });
});
