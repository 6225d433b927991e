/**
 * The service as a client sees it, each figure next to a reference measured in the same run:
 *
 * - GET /v1/predictions/{id} of a finished target_id prediction at the spec's defaults, with wrk
 *   (32 connections), against bare Fastify in this runtime streaming the same bytes from a file;
 *   the API's event-loop delay meanwhile (monitorEventLoopDelay: stalls hold up every client
 *   and runner callback);
 * - the same with small max_* and the quota route, against a bare Fastify hello-world;
 * - /health with the edge limit on against /health with it off;
 * - Kang split target_validation submit → completed (first job after start, then the median)
 *   against the runner command line doing the same job as a whole process;
 * - jobs per minute, N accounts × M jobs, at executor concurrency 1 and 2, against the runner
 *   command line in a row; peak RSS of a runner process against the command line's.
 *
 * The API runs in this process (embedded mode, the production logger writing to a file) so its
 * event loop can be watched. CAUSEWAY_BENCH_API_ROOT benchmarks another checkout of the
 * repository (e.g. an older commit) with the same client; CAUSEWAY_BENCH_SECONDS (wrk duration,
 * default 8) and CAUSEWAY_BENCH_JOBS ("accounts x jobs", default 8x5) size the run.
 */
import { spawn } from "node:child_process";
import { mkdtemp, readdir, readFile, rm, writeFile } from "node:fs/promises";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { monitorEventLoopDelay } from "node:perf_hooks";
import Fastify from "fastify";
import pino from "pino";
// Types only: the modules themselves are loaded from CAUSEWAY_BENCH_API_ROOT.
import type * as AppTypes from "../../../api/src/app.ts";
import type * as ConfigTypes from "../../../api/src/config.ts";
import type * as ContextTypes from "../../../api/src/create-context.ts";
import type * as ModelsTypes from "../../../api/src/services/models/models.ts";
import type * as AccountsTypes from "../../../api/src/db/accounts.ts";
import type * as LoggingTypes from "../../../api/src/observability/logging.ts";
import { DEFAULT_NETWORK, HGNC_DIR, KANG_DIR, REPO_ROOT, sharedData } from "../../shared-data.ts";
import { median, type BenchRow, type BenchSuite } from "../bench.ts";

type AppModule = typeof AppTypes;
type ConfigModule = typeof ConfigTypes;
type ContextModule = typeof ContextTypes;
type ModelsModule = typeof ModelsTypes;
type AccountsModule = typeof AccountsTypes;
type LoggingModule = typeof LoggingTypes;
type Context = Awaited<ReturnType<ContextModule["createContext"]>>;

const ROOT = resolve(process.env.CAUSEWAY_BENCH_API_ROOT ?? REPO_ROOT);
const WRK_SECONDS = Number(process.env.CAUSEWAY_BENCH_SECONDS ?? 8);
const [ACCOUNTS, JOBS_EACH] = (process.env.CAUSEWAY_BENCH_JOBS ?? "8x5").split("x").map(Number) as [
  number,
  number,
];
const SPLIT = join(KANG_DIR, "split_cd14mono");
const SMALL = "max_rows=10&max_source_influence_rows=10&max_columns=10";

const load = async <T>(path: string): Promise<T> => (await import(join(ROOT, path))) as T;

export interface Api {
  url: string;
  ctx: Context;
  /** A second app on the same context with the edge limit off. */
  edgeOffUrl: string;
  close(): Promise<void>;
}

export async function startApi(dataDir: string, env: Record<string, string>): Promise<Api> {
  const { buildApp, REDACT_PATHS } = await load<AppModule>("api/src/app.ts");
  const { loadConfig } = await load<ConfigModule>("api/src/config.ts");
  const { createContext, closeContext } = await load<ContextModule>("api/src/create-context.ts");
  // A checkout from before model versions names the start-up import in the singular.
  const models = await load<ModelsModule>("api/src/services/models/models.ts");
  const legacy = models as unknown as { ensureConfiguredModel?: typeof models.ensureConfiguredModels };
  const ensureConfiguredModels = legacy.ensureConfiguredModel ?? models.ensureConfiguredModels;
  const { apiLoggerOptions } = await load<LoggingModule>("api/src/observability/logging.ts");
  const port = await freePort();
  const config = loadConfig({
    PATH: process.env.PATH,
    HOME: process.env.HOME,
    HOST: "127.0.0.1",
    PORT: String(port),
    LOG_LEVEL: "info",
    CAUSEWAY_DATA_DIR: dataDir,
    CAUSEWAY_MODEL: DEFAULT_NETWORK,
    CAUSEWAY_HGNC: HGNC_DIR,
    CAUSEWAY_LIBRARIES: sharedData("libraries"),
    CAUSEWAY_RUNNER_ENTRY: join(ROOT, "runner/src/main.ts"),
    CAUSEWAY_RATE_LIMIT: "1000000",
    CAUSEWAY_EDGE_LIMIT: "1000000",
    CAUSEWAY_INFLIGHT_LIMIT: "1000",
    CAUSEWAY_DEFAULT_QUOTA: "1000000",
    ...env,
  });
  // The production logger options, writing to a file as a server writes to its log collector.
  const logger = pino(
    apiLoggerOptions("info", REDACT_PATHS, { isTTY: false }),
    pino.destination({ dest: join(dataDir, "api.log"), sync: false, mkdir: true }),
  );
  const ctx = await createContext(config, logger);
  await ensureConfiguredModels(ctx, config.model, () => {});
  // The server imports model versions after it listens (main.ts); jobs wait for that gate.
  await ctx.modelImports?.start();
  const app = await buildApp(ctx, { loggerInstance: logger });
  await app.listen({ port, host: "127.0.0.1" });
  const off = await buildApp(
    { ...ctx, config: { ...config, limits: { ...config.limits, edgeEnabled: false } } },
    { loggerInstance: logger },
  );
  await off.listen({ port: 0, host: "127.0.0.1" });
  return {
    url: `http://127.0.0.1:${port}`,
    edgeOffUrl: `http://127.0.0.1:${(off.server.address() as AddressInfo).port}`,
    ctx,
    async close() {
      await off.close();
      await app.close();
      await closeContext(ctx);
      logger.flush();
    },
  };
}

async function freePort(): Promise<number> {
  const probe = Fastify();
  await probe.listen({ port: 0, host: "127.0.0.1" });
  const { port } = probe.server.address() as AddressInfo;
  await probe.close();
  return port;
}

/** Bare Fastify (test/bench/reference-server.ts) in a child process of the same runtime. */
async function startReference(file: string): Promise<{ url: string; close(): Promise<void> }> {
  const child = spawn(
    process.execPath,
    [fileURLToPath(new URL("../reference-server.ts", import.meta.url)), file],
    {
      stdio: ["ignore", "pipe", "inherit"],
    },
  );
  const port = await new Promise<number>((resolvePort, reject) => {
    child.stdout.once("data", (d: Buffer) => resolvePort(Number(d.toString().trim())));
    child.once("exit", (code) => reject(new Error(`reference server exited ${code}`)));
  });
  return {
    url: `http://127.0.0.1:${port}`,
    close: () =>
      new Promise<void>((done) => {
        child.once("exit", () => done());
        child.kill("SIGTERM");
      }),
  };
}

/** Waits until the server answers /health quickly again (requests queued by wrk are done). */
async function drained(url: string): Promise<void> {
  const until = performance.now() + 180_000;
  while (performance.now() < until) {
    const t0 = performance.now();
    await fetch(`${url}/health`).then((r) => r.arrayBuffer());
    if (performance.now() - t0 < 50) return;
    await new Promise((r) => setTimeout(r, 250));
  }
}

interface WrkResult {
  rps: number;
  p50ms: number;
  p99ms: number;
  non2xx: number;
}

function toMs(v: string): number {
  const m = /^([\d.]+)(us|ms|s|m)$/.exec(v.trim());
  if (!m) return NaN;
  const n = Number(m[1]);
  return m[2] === "us" ? n / 1000 : m[2] === "ms" ? n : m[2] === "s" ? n * 1000 : n * 60_000;
}

/** wrk with 32 connections over two threads, as in the service's measurements. */
async function wrk(url: string, headers: Record<string, string> = {}): Promise<WrkResult> {
  const args = ["-t2", "-c32", `-d${WRK_SECONDS}s`, "--latency", "--timeout", "30s"];
  for (const [k, v] of Object.entries(headers)) args.push("-H", `${k}: ${v}`);
  args.push(url);
  const out = await run("wrk", args);
  const rps = Number(/Requests\/sec:\s+([\d.]+)/.exec(out)?.[1] ?? NaN);
  const p50ms = toMs(/\s50%\s+(\S+)/.exec(out)?.[1] ?? "");
  const p99ms = toMs(/\s99%\s+(\S+)/.exec(out)?.[1] ?? "");
  const non2xx = Number(/Non-2xx or 3xx responses:\s+(\d+)/.exec(out)?.[1] ?? 0);
  return { rps, p50ms, p99ms, non2xx };
}

function run(cmd: string, args: string[], options: { cwd?: string } = {}): Promise<string> {
  return new Promise((resolvePromise, reject) => {
    const child = spawn(cmd, args, { cwd: options.cwd, stdio: ["ignore", "pipe", "pipe"] });
    let out = "";
    let err = "";
    child.stdout.on("data", (d: Buffer) => (out += d.toString()));
    child.stderr.on("data", (d: Buffer) => (err += d.toString()));
    child.on("error", reject);
    child.on("close", (code) =>
      code === 0 ? resolvePromise(out) : reject(new Error(`${cmd} exited ${code}: ${err.slice(-2000)}`)),
    );
  });
}

/** Peak resident set (VmHWM) of every child process of this one seen while sampling. */
class RssSampler {
  readonly peaks = new Map<number, number>();
  private timer: NodeJS.Timeout | undefined;
  start(): void {
    this.timer = setInterval(() => void this.sample(), 200);
  }
  async stop(): Promise<number[]> {
    clearInterval(this.timer);
    await this.sample();
    return [...this.peaks.values()];
  }
  private async sample(): Promise<void> {
    // Descendants, not only children: the runtime may start node through a wrapper process.
    const seen = new Set<number>();
    const visit = async (pid: number): Promise<void> => {
      const tasks = await readdir(`/proc/${pid}/task`).catch(() => [] as string[]);
      for (const tid of tasks) {
        const children = await readFile(`/proc/${pid}/task/${tid}/children`, "utf8").catch(() => "");
        for (const child of children.split(" ").filter(Boolean).map(Number)) {
          if (seen.has(child)) continue;
          seen.add(child);
          await visit(child);
        }
      }
    };
    await visit(process.pid);
    for (const pid of seen) {
      // Node names its main thread "MainThread": recognise node by its command line.
      const cmd = await readFile(`/proc/${pid}/cmdline`, "utf8").catch(() => "");
      if (!/(^|\/)node$/.test(cmd.split("\0")[0] ?? "")) continue;
      const status = await readFile(`/proc/${pid}/status`, "utf8").catch(() => "");
      const kb = Number(/VmHWM:\s+(\d+)/.exec(status)?.[1] ?? 0);
      if (kb > (this.peaks.get(pid) ?? 0)) this.peaks.set(pid, kb);
    }
  }
}

export async function submit(
  api: Api,
  key: string,
  jobType: "target_id" | "target_validation",
): Promise<string> {
  const form = new FormData();
  form.set("dataset_control", new Blob([await readFile(join(SPLIT, "control.h5ad"))]), "control.h5ad");
  form.set("dataset_pert", new Blob([await readFile(join(SPLIT, "perturbed.h5ad"))]), "perturbed.h5ad");
  form.set("degs", await readFile(join(SPLIT, "degs.json"), "utf8"));
  form.set("job_type", jobType);
  if (jobType === "target_validation") form.set("target", "STAT1|PROTEIN");
  const res = await fetch(`${api.url}/v1/predictions`, {
    method: "POST",
    headers: { "x-api-key": key },
    body: form,
  });
  if (res.status !== 202) throw new Error(`submission failed: ${res.status} ${await res.text()}`);
  return ((await res.json()) as { prediction_id: string }).prediction_id;
}

export async function waitDone(api: Api, key: string, id: string): Promise<void> {
  for (;;) {
    const res = await fetch(
      `${api.url}/v1/predictions/${id}?max_rows=1&max_source_influence_rows=1&max_columns=1`,
      {
        headers: { "x-api-key": key },
      },
    );
    const body = (await res.json()) as { status: string; error_code?: string };
    if (body.status === "completed") return;
    if (body.status === "failed") throw new Error(`job ${id} failed: ${body.error_code}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

export async function account(api: Api, tier: "internal" | "external"): Promise<string> {
  const { createAccount } = await load<AccountsModule>("api/src/db/accounts.ts");
  return (await createAccount(api.ctx.db, { name: `bench-${tier}`, tier })).apiKey;
}

/** Submit → completed of one job, in seconds. */
async function latency(api: Api, key: string): Promise<number> {
  const t0 = performance.now();
  const id = await submit(api, key, "target_validation");
  await waitDone(api, key, id);
  return (performance.now() - t0) / 1000;
}

async function jobsPerMinute(api: Api): Promise<number> {
  const keys = await Promise.all(Array.from({ length: ACCOUNTS }, () => account(api, "external")));
  const t0 = performance.now();
  const ids: [string, string][] = [];
  for (let j = 0; j < JOBS_EACH; j++)
    for (const key of keys) ids.push([key, await submit(api, key, "target_validation")]);
  await Promise.all(ids.map(([key, id]) => waitDone(api, key, id)));
  return (ids.length * 60_000) / (performance.now() - t0);
}

async function cliJob(out: string): Promise<number> {
  const t0 = performance.now();
  await run(
    process.execPath,
    [
      join(ROOT, "runner/src/cli.ts"),
      "target-validation",
      "--network",
      DEFAULT_NETWORK,
      "--hgnc",
      HGNC_DIR,
      "--control",
      join(SPLIT, "control.h5ad"),
      "--perturbed",
      join(SPLIT, "perturbed.h5ad"),
      "--degs",
      join(SPLIT, "degs.json"),
      "--target",
      "STAT1|PROTEIN",
      "--out",
      out,
    ],
    { cwd: ROOT },
  );
  return (performance.now() - t0) / 1000;
}

export const f = (n: number, digits = 1) => (Number.isFinite(n) ? n.toFixed(digits) : "n/a");
export const row = (
  name: string,
  measured: string,
  reference: string,
  referenceValue: string,
  ratio: number | null,
  note?: string,
): BenchRow => ({
  name,
  seconds: 0,
  reference,
  referenceSeconds: null,
  figure: { measured, reference: referenceValue, ratio },
  note,
});

export const suite: BenchSuite = {
  name: "service",
  async run(): Promise<BenchRow[]> {
    // Checked first: the jobs part takes minutes before the first wrk run.
    await run("wrk", ["--version"]).catch((err: unknown) => {
      // wrk prints its version and exits 1; only a missing binary is an error.
      if ((err as NodeJS.ErrnoException).code === "ENOENT")
        throw new Error("the service suite needs wrk (Debian: apt-get install wrk)");
    });
    const rows: BenchRow[] = [];
    const dir = await mkdtemp(join(tmpdir(), "causeway-bench-service-"));
    const log = (m: string) => process.stderr.write(`  service: ${m}\n`);
    try {
      // ── jobs ────────────────────────────────────────────────────────────────────────────
      log("runner command line (reference)");
      await cliJob(join(dir, "cli-warm"));
      const cliRss = new RssSampler();
      cliRss.start();
      const cliTimes = [];
      for (let i = 0; i < 3; i++) cliTimes.push(await cliJob(join(dir, `cli-${i}`)));
      const cliPeakKb = Math.max(...(await cliRss.stop()));
      const cliTime = median(cliTimes);

      log("API, executor concurrency 1");
      let api = await startApi(join(dir, "data"), { CAUSEWAY_EXECUTOR_CONCURRENCY: "1" });
      const key = await account(api, "internal");
      const workerRss = new RssSampler();
      workerRss.start();
      const first = await latency(api, key);
      const lat: number[] = [];
      for (let i = 0; i < 5; i++) lat.push(await latency(api, key));
      const jpm1 = ACCOUNTS * JOBS_EACH > 0 ? await jobsPerMinute(api) : NaN;
      await api.close();

      log("API, executor concurrency 2");
      api = await startApi(join(dir, "data"), { CAUSEWAY_EXECUTOR_CONCURRENCY: "2" });
      const jpm2 = ACCOUNTS * JOBS_EACH > 0 ? await jobsPerMinute(api) : NaN;
      const workerPeaks = await workerRss.stop();
      const workerPeakKb = Math.max(0, ...workerPeaks);
      rows.push(
        row(
          "Kang split target_validation submit → completed, median of 5 after the first",
          `${f(median(lat), 2)} s`,
          "runner command line, whole process (median of 3)",
          `${f(cliTime, 2)} s`,
          median(lat) / cliTime,
          `first job after start ${f(first, 2)} s`,
        ),
        row(
          `jobs/min, ${ACCOUNTS} accounts × ${JOBS_EACH} jobs, executor concurrency 2`,
          f(jpm2),
          "the same at concurrency 1",
          f(jpm1),
          jpm2 / jpm1,
          `runner command line in a row: ${f(60 / cliTime)} jobs/min`,
        ),
        row(
          "peak RSS of a runner process (largest seen)",
          `${f(workerPeakKb / 1024, 0)} MB`,
          "runner command line, whole process",
          `${f(cliPeakKb / 1024, 0)} MB`,
          workerPeakKb / cliPeakKb,
          `${workerPeaks.length} runner processes seen`,
        ),
      );

      // ── reads ───────────────────────────────────────────────────────────────────────────
      log("finished target_id prediction");
      const internal = await account(api, "internal");
      const id = await submit(api, internal, "target_id");
      await waitDone(api, internal, id);
      const statusUrl = `${api.url}/v1/predictions/${id}`;
      const body = Buffer.from(
        await (await fetch(statusUrl, { headers: { "x-api-key": internal } })).arrayBuffer(),
      );
      const file = join(dir, "status.json");
      await writeFile(file, body);
      const ref = await startReference(file);
      try {
        const headers = { "x-api-key": internal };
        // References first, while the API is idle; the API is drained after each of its runs.
        await fetch(`${ref.url}/stall`);
        const bare = await wrk(`${ref.url}/file`);
        const refStallMs = ((await (await fetch(`${ref.url}/stall`)).json()) as { max_ms: number }).max_ms;
        const hello = await wrk(`${ref.url}/hello`);
        await drained(api.url);
        const delay = monitorEventLoopDelay({ resolution: 5 });
        delay.enable();
        const status = await wrk(statusUrl, headers);
        delay.disable();
        const stallMs = delay.max / 1e6;
        const stallP99Ms = delay.percentile(99) / 1e6;
        await drained(api.url);
        rows.push(
          row(
            "GET /v1/predictions/{id}, finished target_id, spec defaults (req/s)",
            f(status.rps),
            "bare Fastify streaming the same bytes from a file",
            f(bare.rps),
            status.rps / bare.rps,
            `${f(body.length / 1e6, 2)} MB body; p99 ${f(status.p99ms, 0)} ms vs ${f(bare.p99ms, 0)} ms ` +
              `(${f(status.p99ms / bare.p99ms, 2)}×); p50 ${f(status.p50ms, 0)} ms; event-loop delay ` +
              `max ${f(stallMs, 1)} ms, p99 ${f(stallP99Ms, 1)} ms (bare Fastify's max ${f(refStallMs, 1)} ms); ` +
              `non-2xx ${status.non2xx}`,
          ),
        );
        const small = await wrk(`${statusUrl}?${SMALL}`, headers);
        await drained(api.url);
        rows.push(
          row(
            "GET /v1/predictions/{id} with max_rows=max_source_influence_rows=max_columns=10 (req/s)",
            f(small.rps),
            "bare Fastify hello-world",
            f(hello.rps),
            small.rps / hello.rps,
            `p50 ${f(small.p50ms, 1)} ms; non-2xx ${small.non2xx}`,
          ),
        );
        const quota = await wrk(`${api.url}/v1/usage/predictions/quota`, headers);
        await drained(api.url);
        rows.push(
          row(
            "GET /v1/usage/predictions/quota (req/s)",
            f(quota.rps),
            "bare Fastify hello-world",
            f(hello.rps),
            quota.rps / hello.rps,
            `p50 ${f(quota.p50ms, 1)} ms; non-2xx ${quota.non2xx}`,
          ),
        );
        const healthOn = await wrk(`${api.url}/health`);
        await drained(api.url);
        const healthOff = await wrk(`${api.edgeOffUrl}/health`);
        rows.push(
          row(
            "GET /health with the edge limit on (req/s)",
            f(healthOn.rps),
            "/health with the edge limit off",
            f(healthOff.rps),
            healthOn.rps / healthOff.rps,
            `bare Fastify hello-world ${f(hello.rps)} req/s`,
          ),
        );
      } finally {
        await ref.close();
        await api.close();
      }
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
    return rows;
  },
};
