/**
 * Test support: the app built from the embedded mode's real parts (PGlite in memory over its
 * socket, the in-memory limit store, a filesystem store in a temp dir) with a recording
 * dispatcher, fake runner pieces and a settable clock.
 */
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { FastifyInstance } from "fastify";
import pino from "pino";
import { signCallback, type JobKind, type JobSpec, type RunnerCallback } from "@causeway/contract";
import { FsObjectStore } from "@causeway/runner/storage";
import { REDACT_PATHS, buildApp } from "../app.ts";
import { loadConfig } from "../config.ts";
import type { AppContext } from "../context.ts";
import { closeContext, createContext } from "../create-context.ts";
import { createAccount, getQuota, type Tier } from "../db/accounts.ts";
import { countJobs } from "../db/jobs.ts";
import { registerModel } from "../db/models.ts";
import type { DispatchContext, Dispatcher, MirroredStatus } from "../dispatch/dispatcher.ts";
import { limitKeys } from "../limits/limit-store.ts";
import { MemoryLimitStore } from "../limits/memory-store.ts";
import type { GeneLookupPiece, PathRow, RunnerPieces, UploadSummary } from "../runner-pieces.ts";
import { DownloadTokens } from "../storage/download-tokens.ts";
import { JobEvents } from "../events/job-events.ts";
import { apiLoggerOptions } from "../observability/logging.ts";
import { deriveCallbackKey } from "@causeway/contract";

export class RecordingDispatcher implements Dispatcher {
  readonly specs: JobSpec[] = [];
  readonly contexts: DispatchContext[] = [];
  readonly mirrored: { job: { kind: JobKind; job_id: string }; status: MirroredStatus }[] = [];
  fail = false;
  async dispatch(spec: JobSpec, ctx: DispatchContext): Promise<void> {
    if (this.fail) throw new Error("queue down");
    this.specs.push(spec);
    this.contexts.push(ctx);
  }
  async mirrorStatus(job: { kind: JobKind; job_id: string }, status: MirroredStatus): Promise<void> {
    this.mirrored.push({ job, status });
  }
  async close(): Promise<void> {}
}

/** Runner pieces whose behaviour each test sets. */
export class FakeRunner implements RunnerPieces {
  validated: { path: string; maxObs: number | null }[] = [];
  reject: { code: string; message: string } | null = null;
  png = Buffer.from("89504e470d0a1a0a", "hex");
  async validateUpload(path: string, options: { maxObs: number | null }): Promise<UploadSummary> {
    this.validated.push({ path, maxObs: options.maxObs });
    if (this.reject)
      throw Object.assign(new Error(this.reject.message), { name: "UploadRejected", code: this.reject.code });
    return { nObs: 10, nVars: 20 };
  }
  /** Calls of prepareUploadValidator (submissions start the validator as their upload begins). */
  prepared = 0;
  prepareUploadValidator(): void {
    this.prepared++;
  }
  async importModel(): Promise<unknown> {
    return { version: "v1" };
  }
  /** What geneLookup answers; a test that calls POST /v1/genes/resolve sets it. */
  lookup: GeneLookupPiece | null = null;
  lookedUp: string[] = [];
  async geneLookup(_store: unknown, version: string): Promise<GeneLookupPiece> {
    this.lookedUp.push(version);
    if (!this.lookup) throw new Error("FakeRunner.lookup is not set");
    return this.lookup;
  }
  async close(): Promise<void> {}
  async intermediaryProteins(
    rows: PathRow[],
    options: { topNDegs: number; deg: string | null; impactedDegOrder: string[] },
  ) {
    const top = new Set(options.impactedDegOrder.slice(0, options.topNDegs));
    const proteins = new Set<string>();
    let used = 0;
    for (const r of rows) {
      if (!top.has(r.deg)) continue;
      const nodes = r.path.split(">").slice(1, -1);
      if (nodes.length > 0) used++;
      for (const n of nodes) proteins.add(n);
    }
    return { proteins: [...proteins], n_paths_used: used };
  }
  async renderCausalGraph(inputs: unknown): Promise<Buffer> {
    if (!inputs || typeof inputs !== "object" || !("paths" in inputs)) {
      throw Object.assign(new Error("invalid"), { name: "InvalidGraphInputs" });
    }
    return this.png;
  }
}

export interface TestApp {
  app: FastifyInstance;
  ctx: AppContext;
  dispatcher: RecordingDispatcher;
  runner: FakeRunner;
  store: FsObjectStore;
  limits: MemoryLimitStore;
  clock: { now: Date; advance(ms: number): void };
  account(tier: Tier, quota?: number | null): Promise<{ id: string; key: string }>;
  /** Sends a signed runner callback through the HTTP route. */
  callback(
    cb: RunnerCallback,
    options?: { secret?: string; timestamp?: number; path?: string },
  ): Promise<{ statusCode: number; body: string }>;
  close(): Promise<void>;
}

export async function buildTestApp(
  env: Record<string, string> = {},
  options: { logLines?: string[]; heartbeatMs?: number } = {},
): Promise<TestApp> {
  const dir = await mkdtemp(join(tmpdir(), "causeway-api-test-"));
  const config = loadConfig({
    CAUSEWAY_DATA_DIR: dir,
    CAUSEWAY_EDGE_LIMIT_ENABLED: "false",
    CAUSEWAY_CALLBACK_SECRET: "test-secret-test-secret-test-secret-0123",
    LOG_LEVEL: "silent",
    ...env,
  });
  const clock = {
    now: new Date("2026-01-01T00:00:00.000Z"),
    advance(ms: number) {
      this.now = new Date(this.now.getTime() + ms);
    },
  };
  const dispatcher = new RecordingDispatcher();
  const runner = new FakeRunner();
  const limits = new MemoryLimitStore();
  const tokens = new DownloadTokens(config.callbackSecret!);
  const store = new FsObjectStore(
    join(dir, "objects"),
    tokens.signer(config.publicUrl, () => clock.now.getTime()),
  );
  const ctx = await createContext(config, pino({ level: "silent" }), {
    dispatcher,
    runner,
    limits,
    store,
    now: () => clock.now,
    ephemeralDatabase: true,
    events: new JobEvents({ heartbeatMs: options.heartbeatMs, log: pino({ level: "silent" }) }),
  });
  await registerModel(ctx.db, "v1", { version: "v1" }, true);
  const lines = options.logLines;
  const app = lines
    ? await buildApp(ctx, {
        // The production logger options, writing into `lines`.
        loggerInstance: pino(apiLoggerOptions("trace", REDACT_PATHS, { isTTY: false }), {
          write: (line: string) => void lines.push(line),
        }),
      })
    : await buildApp(ctx, { logger: false });
  await app.ready();
  return {
    app,
    ctx,
    dispatcher,
    runner,
    store,
    limits,
    clock,
    async account(tier, quota = null) {
      const { account, apiKey } = await createAccount(ctx.db, { name: `t-${tier}`, tier, quota });
      return { id: account.id, key: apiKey };
    },
    async callback(cb, options = {}) {
      const raw = JSON.stringify(cb);
      const ts = options.timestamp ?? Math.floor(clock.now.getTime() / 1000);
      const key = deriveCallbackKey(options.secret ?? config.callbackSecret!, cb.job_id);
      const res = await app.inject({
        method: "POST",
        url: options.path ?? `/internal/v1/jobs/${cb.kind}/${cb.job_id}/callback`,
        headers: {
          "content-type": "application/json",
          "x-causeway-timestamp": String(ts),
          "x-causeway-signature": signCallback(key, ts, raw),
        },
        payload: raw,
      });
      return { statusCode: res.statusCode, body: res.body };
    },
    async close() {
      await app.close();
      await closeContext(ctx);
      await rm(dir, { recursive: true, force: true });
    },
  };
}

/** A multipart body built by hand (app.inject takes a Buffer payload). */
export function multipart(
  fields: Record<string, string>,
  files: Record<string, { filename: string; content: Buffer | string }> = {},
): { payload: Buffer; headers: Record<string, string> } {
  const boundary = "----causewaytest" + Math.random().toString(16).slice(2);
  const chunks: Buffer[] = [];
  for (const [name, value] of Object.entries(fields)) {
    chunks.push(
      Buffer.from(`--${boundary}\r\nContent-Disposition: form-data; name="${name}"\r\n\r\n${value}\r\n`),
    );
  }
  for (const [name, f] of Object.entries(files)) {
    chunks.push(
      Buffer.from(
        `--${boundary}\r\nContent-Disposition: form-data; name="${name}"; filename="${f.filename}"\r\nContent-Type: application/octet-stream\r\n\r\n`,
      ),
    );
    chunks.push(Buffer.isBuffer(f.content) ? f.content : Buffer.from(f.content));
    chunks.push(Buffer.from("\r\n"));
  }
  chunks.push(Buffer.from(`--${boundary}--\r\n`));
  return {
    payload: Buffer.concat(chunks),
    headers: { "content-type": `multipart/form-data; boundary=${boundary}` },
  };
}

export const H5 = { filename: "data.h5ad", content: Buffer.from("\x89HDF\r\n\x1a\nfake") };

/** A valid split target_validation form. */
export function splitForm(extra: Record<string, string> = {}) {
  return multipart(
    {
      job_type: "target_validation",
      target: "STAT1|PROTEIN",
      degs: JSON.stringify(["IRF1", "GBP1"]),
      ...extra,
    },
    { dataset_control: { ...H5, filename: "control.h5ad" }, dataset_pert: { ...H5, filename: "pert.h5ad" } },
  );
}

/** Every object key in a filesystem store (proves what was or was not stored). */
export async function storedKeys(store: FsObjectStore): Promise<string[]> {
  const { readdir } = await import("node:fs/promises");
  try {
    const entries = await readdir(store.root, { recursive: true, withFileTypes: true });
    return entries
      .filter((e) => e.isFile())
      .map((e) => join(e.parentPath, e.name).slice(store.root.length + 1));
  } catch {
    return [];
  }
}

/**
 * What a submission can leave behind for an account: rows, stored objects, dispatched specs,
 * consumed quota, in-flight reservations (equal before and after = nothing left behind).
 */
export async function submissionSnapshot(t: TestApp, accountId: string) {
  return {
    rows: await countRows(t.ctx, "predictions"),
    objects: (await storedKeys(t.store)).length,
    dispatched: t.dispatcher.specs.length,
    quota: (await getQuota(t.ctx.db, accountId, 100)).consumed_quota_requests,
    inflight: (await t.limits.reservations(limitKeys.inflight(accountId), t.clock.now.getTime())).length,
  };
}

/** Rows in a table (proves what was or was not recorded). */
export function countRows(ctx: AppContext, table: "predictions" | "causal_analyses"): Promise<number> {
  return countJobs(ctx.db, table === "predictions" ? "prediction" : "causal_analysis");
}

/** Artifacts of a small completed target_validation run (model.md §13 shapes). */
export function validationArtifacts(target = "STAT1|PROTEIN"): Record<string, Buffer | string> {
  const scores =
    [
      "id\tnode_type\tscore\trank\trank_percentage\tpvalue\tz_score\tis_deg\tprotein_expressed\tn_degs_significant\tpercentage_degs_significant\tqvalue",
      "STAT1|PROTEIN\tPROTEIN\t12.5\t0\t0\t3.1e-13\t7.2\tTRUE\tTRUE\t2\t100\t1e-10",
      "JAK1|PROTEIN\tPROTEIN\t8.25\t1\t0.5\t5.6e-09\t5.1\tFALSE\tNA\t1\t50\t1e-6",
      "IRF9|PROTEIN\tPROTEIN\t1\t2\t1\t0.1\tNA\tFALSE\tFALSE\t0\t0\t0.2",
    ].join("\n") + "\n";
  const ids = {
    row_ids: ["STAT1|PROTEIN", "JAK1|PROTEIN", "IRF9|PROTEIN"],
    column_ids: ["IRF1|RNA", "GBP1|RNA"],
  };
  const m = new Float32Array([1.5, Number.NaN, 0.25, -1, Number.NaN, 2]);
  const header = "{'descr': '<f4', 'fortran_order': False, 'shape': (3, 2), }";
  const pad = " ".repeat((64 - ((10 + header.length + 1) % 64)) % 64);
  const h = Buffer.from(header + pad + "\n", "latin1");
  const prefix = Buffer.from([0x93, 0x4e, 0x55, 0x4d, 0x50, 0x59, 1, 0, 0, 0]);
  prefix.writeUInt16LE(h.length, 8);
  const npy = Buffer.concat([prefix, h, Buffer.from(m.buffer)]);
  const paths =
    [
      "deg\ttarget\tpath\tlength\tscore_path_given_target\tpath_logFC\tdeg_logFC\tpath_probability\tpath_nodes",
      `IRF1\tSTAT1\tSTAT1>IRF1\t2\t0.5\tNA\t2.5\t0.2\t["STAT1|PROTEIN","IRF1|RNA"]`,
      `GBP1\tSTAT1\tSTAT1>IRF1>GBP1\t3\t0.25\t1.5\t3.1\t0.05\t[]`,
      `GBP1\tSTAT1\tSTAT1>IRF9>GBP1\t3\t0.125\tNA\t3.1\t0.01\t[]`,
      `OTHER\tSTAT1\tSTAT1>X>OTHER\t3\t0.1\tNA\t1\t0.01\t[]`,
    ].join("\n") + "\n";
  return {
    "target_scores.tsv": scores,
    "source_influence_matrix.npy": npy,
    "source_influence_matrix.ids.json": JSON.stringify(ids),
    "mapped_degs.json": JSON.stringify(["IRF1", "GBP1", "OTHER"]),
    "target_validation.json": JSON.stringify({
      target,
      rank: 0,
      percentage_degs_significant: 100,
      n_candidates: 3,
    }),
    "degs_impacted.json": JSON.stringify({
      target,
      min_deg_fold_uniform: 0.5,
      top_n_causal_degs: 1000,
      degs_total: 2,
      degs: ["IRF1", "GBP1"],
    }),
    "causal_paths.tsv": paths,
    "causal_graph_inputs.json": JSON.stringify({ paths: [] }),
    "run_metadata.json": "{}",
  };
}

/** Stores artifacts under a job's prefix and reports the job completed through the callback route. */
export async function completeJob(
  t: TestApp,
  kind: JobKind,
  jobId: string,
  files: Record<string, Buffer | string>,
  extra: {
    result_sets?: string[];
    dataset_summary?: Record<string, unknown>;
    warnings?: { code: string; message: string }[];
  } = {},
): Promise<void> {
  const result_files = [];
  for (const [name, body] of Object.entries(files)) {
    const key = `jobs/${kind}/${jobId}/test/${name}`;
    await t.store.put(key, typeof body === "string" ? body : body);
    result_files.push({ name, key });
  }
  const res = await t.callback({
    job_id: jobId,
    kind,
    attempt: "local-1",
    seq: 99,
    status: "completed",
    result_files,
    result_sets: extra.result_sets ?? [""],
    dataset_summary: extra.dataset_summary ?? null,
    ...(extra.warnings ? { warnings: extra.warnings } : {}),
  });
  if (res.statusCode !== 200) throw new Error(`completion callback failed: ${res.statusCode} ${res.body}`);
}

/** Submits a valid split target_validation prediction; returns its id. */
export async function submit(t: TestApp, key: string, form = splitForm()): Promise<string> {
  const res = await t.app.inject({
    method: "POST",
    url: "/v1/predictions",
    headers: { ...form.headers, "x-api-key": key },
    payload: form.payload,
  });
  if (res.statusCode !== 202) throw new Error(`submission failed: ${res.statusCode} ${res.body}`);
  return res.json<{ prediction_id: string }>().prediction_id;
}
