/**
 * Start-up reconciliation of what a dead process left (the kill -9 end-to-end test is
 * test/e2e/crash-reconciliation.test.ts): here each leftover is made the way a dying request
 * leaves it, on the embedded database, and reconciled.
 */
import { mkdir, readdir, utimes, writeFile } from "node:fs/promises";
import { join } from "node:path";
import pino from "pino";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { PredictionJobSpec } from "@causeway/contract";
import { consumeQuota, getQuota } from "../../db/accounts.ts";
import { claimIdempotencyKey } from "../../db/idempotency.ts";
import { buildTestApp, splitForm, storedKeys, submit, type TestApp } from "../../testing/helper.ts";
import { reconcileAfterCrash } from "./crash-reconciliation.ts";
import { runnersTmpDir, uploadsDir } from "../submission/work-dirs.ts";

let t: TestApp;
beforeAll(async () => {
  t = await buildTestApp({ CAUSEWAY_INFLIGHT_LIMIT: "1000" });
}, 120_000);
afterAll(async () => t.close());

const log = pino({ level: "silent" });
const past = new Date(Date.now() - 3_600_000);

describe("reconcileAfterCrash", () => {
  it("refunds units of submissions that never became predictions, keeps the billable ones", async () => {
    const { id, key } = await t.account("external");
    await submit(t, key);
    await submit(t, key);
    // Two submissions that died after taking their unit, before their row.
    for (const submissionId of [
      "11111111-1111-4111-8111-000000000001",
      "11111111-1111-4111-8111-000000000002",
    ])
      expect(await consumeQuota(t.ctx.db, id, 100, { submissionId, at: t.clock.now })).toBe(true);
    expect((await getQuota(t.ctx.db, id, 100)).consumed_quota_requests).toBe(4);
    const done = await reconcileAfterCrash(t.ctx, log, new Date());
    expect(done.refundedUnits).toBe(2);
    expect((await getQuota(t.ctx.db, id, 100)).consumed_quota_requests).toBe(2);
    // Idempotent: a second start refunds nothing more.
    expect((await reconcileAfterCrash(t.ctx, log, new Date())).refundedUnits).toBe(0);
    expect((await getQuota(t.ctx.db, id, 100)).consumed_quota_requests).toBe(2);
  });

  it("removes upload and runner work folders of dead processes, not the current process's", async () => {
    const dataDir = t.ctx.config.dataDir;
    const oldUpload = join(uploadsDir(dataDir), "upload-dead");
    const oldWork = join(runnersTmpDir(dataDir), "causeway-job-dead");
    for (const dir of [oldUpload, oldWork]) {
      await mkdir(dir, { recursive: true });
      await writeFile(join(dir, "dataset_control.h5ad"), "client bytes");
      await utimes(dir, past, past);
    }
    const startedAt = new Date(Date.now() - 1000);
    const live = join(uploadsDir(dataDir), "upload-live");
    await mkdir(live, { recursive: true });
    const done = await reconcileAfterCrash(t.ctx, log, startedAt);
    expect(done.removedFolders).toBe(2);
    expect(await readdir(uploadsDir(dataDir))).toEqual(["upload-live"]);
    expect(await readdir(runnersTmpDir(dataDir))).toEqual([]);
  });

  it("deletes the partial outputs of unfinished jobs and frees dead Idempotency-Key claims", async () => {
    const { id, key } = await t.account("internal");
    const p = await submit(t, key);
    const spec = PredictionJobSpec.parse(t.dispatcher.specs.find((s) => s.job_id === p));
    await t.store.put(`${spec.output_prefix}/local-1/target_scores.tsv`, "partial");
    await claimIdempotencyKey(t.ctx.db, {
      accountId: id,
      key: "dead-request",
      token: "22222222-2222-4222-8222-222222222222",
      now: t.clock.now,
      expiresAt: new Date(t.clock.now.getTime() + 86_400_000),
      staleBefore: new Date(0),
    });
    const form = splitForm();
    const blocked = await t.app.inject({
      method: "POST",
      url: "/v1/predictions",
      headers: { ...form.headers, "x-api-key": key, "idempotency-key": "dead-request" },
      payload: form.payload,
    });
    expect(blocked.statusCode).toBe(409);
    const done = await reconcileAfterCrash(t.ctx, log, new Date());
    expect(done.freedClaims).toBe(1);
    expect(done.clearedOutputs).toBeGreaterThanOrEqual(1);
    expect((await storedKeys(t.store)).filter((k) => k.startsWith(spec.output_prefix))).toEqual([]);
    const retried = await t.app.inject({
      method: "POST",
      url: "/v1/predictions",
      headers: { ...form.headers, "x-api-key": key, "idempotency-key": "dead-request" },
      payload: form.payload,
    });
    expect(retried.statusCode).toBe(202);
  });

  it("deletes the outputs of attempts a finished job abandoned, keeps the attempt it lists", async () => {
    const { key } = await t.account("internal");
    const p = await submit(t, key);
    const spec = PredictionJobSpec.parse(t.dispatcher.specs.find((s) => s.job_id === p));
    // Attempt 1 died half-way; attempt 2 finished and reported its files.
    await t.store.put(`${spec.output_prefix}/local-1/target_scores.tsv`, "partial");
    await t.store.put(`${spec.output_prefix}/local-2/target_scores.tsv`, "id\tscore\n");
    await t.store.put(`${spec.output_prefix}/local-2/sub/run_metadata.json`, "{}");
    const res = await t.callback({
      job_id: p,
      kind: "prediction",
      attempt: "local-2",
      seq: 99,
      status: "completed",
      result_files: [
        { name: "target_scores.tsv", key: `${spec.output_prefix}/local-2/target_scores.tsv` },
        { name: "run_metadata.json", key: `${spec.output_prefix}/local-2/sub/run_metadata.json` },
      ],
      result_sets: [""],
      dataset_summary: null,
    });
    expect(res.statusCode).toBe(200);
    // Another finished job with a single attempt is not touched.
    const other = await submit(t, key);
    const otherSpec = PredictionJobSpec.parse(t.dispatcher.specs.find((s) => s.job_id === other));
    await t.store.put(`${otherSpec.output_prefix}/local-1/target_scores.tsv`, "id\tscore\n");
    await t.callback({
      job_id: other,
      kind: "prediction",
      attempt: "local-1",
      seq: 99,
      status: "completed",
      result_files: [
        { name: "target_scores.tsv", key: `${otherSpec.output_prefix}/local-1/target_scores.tsv` },
      ],
      result_sets: [""],
      dataset_summary: null,
    });
    const done = await reconcileAfterCrash(t.ctx, log, new Date());
    expect(done.sweptAttempts).toBe(1);
    const keys = await storedKeys(t.store);
    expect(keys.filter((k) => k.startsWith(`${spec.output_prefix}/`)).sort()).toEqual([
      `${spec.output_prefix}/local-2/sub/run_metadata.json`,
      `${spec.output_prefix}/local-2/target_scores.tsv`,
    ]);
    expect(keys).toContain(`${otherSpec.output_prefix}/local-1/target_scores.tsv`);
    expect((await reconcileAfterCrash(t.ctx, log, new Date())).sweptAttempts).toBe(0);
  });
});
