import { stat, writeFile } from "node:fs/promises";
import { join } from "node:path";
import pino from "pino";
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from "vitest";
import { ServiceUnavailable } from "../../errors.ts";
import { findAccountByKey, type Account } from "../../db/accounts.ts";
import type { JobTrace } from "../../observability/request-tracing.ts";
import { H5, buildTestApp, submissionSnapshot, type TestApp } from "../../testing/helper.ts";
import { submitPrediction, type SubmissionInput } from "./submission.ts";
import type { ReceivedUpload } from "./submission-plan.ts";

let t: TestApp;
beforeAll(async () => {
  t = await buildTestApp();
}, 120_000);
afterAll(async () => t.close());
afterEach(() => vi.restoreAllMocks());

const trace: JobTrace = { bindJob: () => {}, startPhase: () => {}, jobContext: () => ({}) };

async function externalAccount(): Promise<Account> {
  const { key } = await t.account("external");
  return (await findAccountByKey(t.ctx.db, key))!;
}

/** A split target_validation upload written into `dir`, as the route's multipart reader would. */
async function splitUpload(dir: string): Promise<ReceivedUpload> {
  const files: ReceivedUpload["files"] = {};
  for (const field of ["dataset_control", "dataset_pert"] as const) {
    const path = join(dir, `${field}.h5ad`);
    await writeFile(path, H5.content);
    files[field] = { path, filename: `${field}.h5ad`, bytes: H5.content.length };
  }
  const fields = { job_type: "target_validation", target: "STAT1|PROTEIN", degs: '["IRF1"]' };
  return { fields, files };
}

/** A submission whose client goes away at the moment `leave` is called. */
function input(account: Account, received: string[]): { input: SubmissionInput; leave: () => void } {
  const gone = new AbortController();
  return {
    leave: () => gone.abort(),
    input: {
      account,
      receive: async (dir) => {
        received.push(dir);
        return splitUpload(dir);
      },
      signal: gone.signal,
      trace,
      log: pino({ level: "silent" }),
    },
  };
}

const snapshot = (accountId: string) => submissionSnapshot(t, accountId);

const exists = (path: string) =>
  stat(path).then(
    () => true,
    () => false,
  );

describe("submitPrediction releases everything it holds, in every way a submission can end", () => {
  it("accepts: the row owns the reservations, only the temp directory goes", async () => {
    const account = await externalAccount();
    const dirs: string[] = [];
    const before = await snapshot(account.id);
    const accepted = await submitPrediction(t.ctx, input(account, dirs).input);
    expect(accepted).toMatchObject({
      status: 202,
      replayed: false,
      body: { status: "pending", estimated_completion: null },
    });
    expect(await snapshot(account.id)).toEqual({
      rows: before.rows + 1,
      objects: before.objects + 3,
      dispatched: before.dispatched + 1,
      quota: 1,
      inflight: 1,
    });
    expect(await exists(dirs[0]!)).toBe(false);
  });

  it("a client gone while its datasets are validated: null, nothing stored, recorded or kept", async () => {
    const account = await externalAccount();
    const dirs: string[] = [];
    const { input: i, leave } = input(account, dirs);
    const validate = t.runner.validateUpload.bind(t.runner);
    vi.spyOn(t.runner, "validateUpload").mockImplementation(async (path, options) => {
      leave();
      return validate(path, options);
    });
    const before = await snapshot(account.id);
    expect(await submitPrediction(t.ctx, i)).toBeNull();
    expect(await snapshot(account.id)).toEqual(before);
    expect(await exists(dirs[0]!)).toBe(false);
  });

  it("a client gone while its inputs are stored: null, and the stored inputs are deleted", async () => {
    const account = await externalAccount();
    const dirs: string[] = [];
    const { input: i, leave } = input(account, dirs);
    const putFile = t.store.putFile.bind(t.store);
    const put = vi.spyOn(t.store, "putFile").mockImplementation(async (...args) => {
      leave();
      return putFile(...args);
    });
    const before = await snapshot(account.id);
    expect(await submitPrediction(t.ctx, i)).toBeNull();
    expect(put).toHaveBeenCalledTimes(3);
    expect(await snapshot(account.id)).toEqual(before);
    expect(await exists(dirs[0]!)).toBe(false);
  });

  it("storage failing halfway: 503 service_unavailable, the half-stored inputs deleted", async () => {
    const account = await externalAccount();
    const dirs: string[] = [];
    const putFile = t.store.putFile.bind(t.store);
    let calls = 0;
    vi.spyOn(t.store, "putFile").mockImplementation(async (...args) => {
      if (++calls === 2) throw new Error("disk full");
      return putFile(...args);
    });
    const before = await snapshot(account.id);
    await expect(submitPrediction(t.ctx, input(account, dirs).input)).rejects.toBeInstanceOf(
      ServiceUnavailable,
    );
    expect(await snapshot(account.id)).toEqual(before);
    expect(await exists(dirs[0]!)).toBe(false);
  });
});
