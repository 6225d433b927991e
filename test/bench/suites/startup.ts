/**
 * A newcomer's first start, as `npm start` does it (the server in its own process, a fresh data
 * directory):
 *
 * - time from spawning the server to the first `/health` 200;
 * - the Kang split target_validation job submitted as soon as an account can be made (the admin
 *   command line needs the database): time from the start to completed (it waits for its model
 *   version's import when that is still running);
 * - the resident memory of the server's whole process tree (API plus warm runners) 60 s after
 *   that job, and the submit → completed time of a second Kang job.
 *
 * Each is run twice: with an empty model bundle cache (a fresh machine: CAUSEWAY_MODEL_CACHE_DIR
 * points at a new, empty directory) and again with a new data directory over the cache the first
 * run filled (a fresh clone on a machine that imported the network before). The server runs as the
 * README's quick start starts it: `npm start` itself (its node flags and malloc settings), with the
 * gene-set libraries; the tree measured is the server's (npm's own process is not the server).
 * Memory is reported as the sum of the processes' resident sets (pages the processes share, such
 * as the node binary's, count once per process) and as the sum of their proportional sets (PSS:
 * a shared page split between the processes that map it, i.e. what the tree holds).
 * The reference is the same measurement of CAUSEWAY_BENCH_BASE_ROOT (a checkout of an earlier
 * commit, e.g. `git worktree add /tmp/base <commit>` with its own `npm ci`), when given; the notes
 * carry the figures this suite measured before the footprint work (FIRST_START_BEFORE).
 * CAUSEWAY_BENCH_IDLE_SECONDS (default 60) sets the wait before the memory reading;
 * CAUSEWAY_BENCH_PORT fixes the server's port (default: a free one); CAUSEWAY_RUNNER_POOL_IDLE_SECONDS,
 * when set, is passed to the server (its default, 300 s, keeps the warm runner through the idle
 * wait; 30, say, measures the API alone and a second job that starts the runner host again).
 */
import { spawn, type ChildProcess } from "node:child_process";
import { existsSync } from "node:fs";
import { mkdtemp, readdir, readFile, rm } from "node:fs/promises";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { basename, join, resolve } from "node:path";
import { DEFAULT_NETWORK, HGNC_DIR, KANG_DIR, REPO_ROOT, SHARED_DATA } from "../../shared-data.ts";
import type { BenchRow, BenchSuite } from "../bench.ts";

const BASE = process.env.CAUSEWAY_BENCH_BASE_ROOT ? resolve(process.env.CAUSEWAY_BENCH_BASE_ROOT) : null;
const IDLE_SECONDS = Number(process.env.CAUSEWAY_BENCH_IDLE_SECONDS ?? 60);
const SPLIT = join(KANG_DIR, "split_cd14mono");
const LIBRARIES_DIR = join(SHARED_DATA, "libraries");

/**
 * This suite's figures on the 2-core machine before the footprint work (listen first had landed;
 * the warm pool kept its runners 10 minutes): printed next to today's in the notes.
 */
const FIRST_START_BEFORE = {
  health: "1.8 s",
  firstJob: "35–79 s",
  tree: "1.16 GB (API 0.67–0.87 GB with PGlite 333–508 MB, one warm runner ~0.4 GB)",
  secondJob: "~0.85 s (warm runner)",
};

interface StartFigures {
  healthSeconds: number;
  firstJobSeconds: number;
  treeMiB: number;
  /** The tree's proportional set size (shared pages counted once), MiB. */
  treePssMiB: number;
  /** Resident MiB of each process of the tree at that moment, the server first. */
  processes: { pid: number; mib: number; what: string }[];
  secondJobSeconds: number;
}

function freePort(): Promise<number> {
  return new Promise((res, rej) => {
    const s = createServer();
    s.once("error", rej);
    s.listen(0, "127.0.0.1", () => {
      const port = (s.address() as { port: number }).port;
      s.close(() => res(port));
    });
  });
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Resident memory of `pid` and every descendant, in MiB (from /proc), in all and per process. */
async function treeRss(
  pid: number,
): Promise<{ mib: number; pssMiB: number; processes: StartFigures["processes"] }> {
  const parent = new Map<number, number>();
  const rss = new Map<number, number>();
  const pss = new Map<number, number>();
  const what = new Map<number, string>();
  for (const name of await readdir("/proc")) {
    if (!/^\d+$/.test(name)) continue;
    try {
      const status = await readFile(`/proc/${name}/status`, "utf8");
      parent.set(Number(name), Number(/^PPid:\s+(\d+)/m.exec(status)?.[1] ?? 0));
      rss.set(Number(name), Number(/^VmRSS:\s+(\d+)/m.exec(status)?.[1] ?? 0));
      const rollup = await readFile(`/proc/${name}/smaps_rollup`, "utf8").catch(() => "");
      pss.set(Number(name), Number(/^Pss:\s+(\d+)/m.exec(rollup)?.[1] ?? 0));
      const cmd = (await readFile(`/proc/${name}/cmdline`, "utf8")).split("\0");
      what.set(Number(name), basename(cmd.find((a) => a.endsWith(".ts")) ?? cmd[0] ?? "?"));
    } catch {
      // The process ended while we looked.
    }
  }
  const inTree = (p: number): boolean => p === pid || (p > 1 && inTree(parent.get(p) ?? 0));
  const members = [...rss.keys()].filter(inTree);
  const processes = members
    .map((p) => ({ pid: p, mib: (rss.get(p) ?? 0) / 1024, what: what.get(p) ?? "?" }))
    .sort((a, b) => Number(b.pid === pid) - Number(a.pid === pid) || b.mib - a.mib);
  return {
    mib: processes.reduce((sum, p) => sum + p.mib, 0),
    pssMiB: members.reduce((sum, p) => sum + (pss.get(p) ?? 0), 0) / 1024,
    processes,
  };
}

/** The pid of the server `npm start` started under `npmPid` (npm → sh → node api/src/main.ts). */
async function serverPid(npmPid: number): Promise<number | null> {
  for (const name of await readdir("/proc")) {
    if (!/^\d+$/.test(name)) continue;
    const cmd = await readFile(`/proc/${name}/cmdline`, "utf8").catch(() => "");
    if (!cmd.split("\0").includes("api/src/main.ts")) continue;
    let p = Number(name);
    while (p > 1) {
      if (p === npmPid) return Number(name);
      const status = await readFile(`/proc/${p}/status`, "utf8").catch(() => "");
      p = Number(/^PPid:\s+(\d+)/m.exec(status)?.[1] ?? 0);
    }
  }
  return null;
}

function run(cmd: string, args: string[], cwd: string, env: NodeJS.ProcessEnv): Promise<string> {
  return new Promise((res, rej) => {
    const child = spawn(cmd, args, { cwd, env, stdio: ["ignore", "pipe", "pipe"] });
    let out = "";
    let err = "";
    child.stdout.on("data", (c: Buffer) => (out += c.toString()));
    child.stderr.on("data", (c: Buffer) => (err += c.toString()));
    child.once("close", (code) =>
      code === 0 ? res(out) : rej(new Error(`${cmd} ${args.join(" ")}: ${err}`)),
    );
  });
}

async function submit(url: string, key: string): Promise<string> {
  const form = new FormData();
  form.set("dataset_control", new Blob([await readFile(join(SPLIT, "control.h5ad"))]), "control.h5ad");
  form.set("dataset_pert", new Blob([await readFile(join(SPLIT, "perturbed.h5ad"))]), "perturbed.h5ad");
  form.set("degs", await readFile(join(SPLIT, "degs.json"), "utf8"));
  form.set("job_type", "target_validation");
  form.set("target", "STAT1|PROTEIN");
  const res = await fetch(`${url}/v1/predictions`, {
    method: "POST",
    headers: { "x-api-key": key },
    body: form,
  });
  if (res.status !== 202) throw new Error(`submission failed: ${res.status} ${await res.text()}`);
  return ((await res.json()) as { prediction_id: string }).prediction_id;
}

async function waitDone(url: string, key: string, id: string): Promise<void> {
  for (;;) {
    const res = await fetch(
      `${url}/v1/predictions/${id}?max_rows=1&max_source_influence_rows=1&max_columns=1`,
      {
        headers: { "x-api-key": key },
      },
    );
    const text = await res.text();
    if (!res.ok) throw new Error(`status of ${id}: ${res.status} ${text.slice(0, 200)}`);
    const body = JSON.parse(text) as { status: string; error_code?: string };
    if (body.status === "completed") return;
    if (body.status === "failed") throw new Error(`job ${id} failed: ${body.error_code}`);
    await sleep(20);
  }
}

/** One first start of the checkout at `root` over `cacheDir`. */
async function firstStart(root: string, cacheDir: string): Promise<StartFigures> {
  const dataDir = await mkdtemp(join(tmpdir(), "causeway-bench-start-"));
  const port = process.env.CAUSEWAY_BENCH_PORT ? Number(process.env.CAUSEWAY_BENCH_PORT) : await freePort();
  const url = `http://127.0.0.1:${port}`;
  const env: NodeJS.ProcessEnv = {
    PATH: process.env.PATH,
    HOME: process.env.HOME,
    HOST: "127.0.0.1",
    PORT: String(port),
    LOG_LEVEL: "warn",
    CAUSEWAY_DATA_DIR: dataDir,
    CAUSEWAY_MODEL: DEFAULT_NETWORK,
    CAUSEWAY_HGNC: HGNC_DIR,
    CAUSEWAY_LIBRARIES: LIBRARIES_DIR,
    CAUSEWAY_MODEL_CACHE_DIR: cacheDir,
    // Polling every 20 ms is the benchmark's, not a client's: the limits stay out of the way.
    CAUSEWAY_RATE_LIMIT: "1000000",
    CAUSEWAY_EDGE_LIMIT: "1000000",
    CAUSEWAY_INFLIGHT_LIMIT: "1000",
    CAUSEWAY_DEFAULT_QUOTA: "1000000",
    // To measure the tree with the pool still warm after the idle wait (a longer idle period).
    ...(process.env.CAUSEWAY_RUNNER_POOL_IDLE_SECONDS
      ? { CAUSEWAY_RUNNER_POOL_IDLE_SECONDS: process.env.CAUSEWAY_RUNNER_POOL_IDLE_SECONDS }
      : {}),
  };
  let server: ChildProcess | undefined;
  try {
    const t0 = performance.now();
    // Its own process group, so that stopping it reaches npm, its shell and the server.
    server = spawn("npm", ["start", "--silent"], { cwd: root, env, stdio: "ignore", detached: true });
    for (;;) {
      if (server.exitCode !== null) throw new Error(`server exited with ${server.exitCode}`);
      const ok = await fetch(`${url}/health`).then(
        (r) => r.ok,
        () => false,
      );
      // Answered by this server (not another process on the port).
      if (ok && server.exitCode === null) break;
      await sleep(50);
    }
    const healthSeconds = (performance.now() - t0) / 1000;
    // The account needs the database, which a server that listens first may still be creating;
    // until its address is published the admin command would use another running server's.
    while (!existsSync(join(dataDir, "pglite.json"))) {
      if (server.exitCode !== null) throw new Error(`server exited with ${server.exitCode}`);
      await sleep(50);
    }
    let created = "";
    for (let attempt = 1; !created; attempt++) {
      created = await run(
        process.execPath,
        ["api/src/admin/cli.ts", "accounts", "create", "--name", "bench", "--tier", "internal", "--json"],
        root,
        env,
      ).catch((err: unknown) => {
        if (attempt >= 120) throw err;
        return sleep(500).then(() => "");
      });
    }
    const key = (JSON.parse(created.trim().split("\n").at(-1) ?? "{}") as { api_key: string }).api_key;
    await waitDone(url, key, await submit(url, key));
    const firstJobSeconds = (performance.now() - t0) / 1000;
    await sleep(IDLE_SECONDS * 1000);
    const pid = await serverPid(server.pid ?? 0);
    if (pid === null) throw new Error("the server process of npm start was not found");
    const tree = await treeRss(pid);
    const t1 = performance.now();
    await waitDone(url, key, await submit(url, key));
    const secondJobSeconds = (performance.now() - t1) / 1000;
    return {
      healthSeconds,
      firstJobSeconds,
      treeMiB: tree.mib,
      treePssMiB: tree.pssMiB,
      processes: tree.processes,
      secondJobSeconds,
    };
  } finally {
    if (server?.pid !== undefined && server.exitCode === null) {
      const group = -server.pid;
      const exited = new Promise((r) => server?.once("exit", r));
      process.kill(group, "SIGTERM");
      await Promise.race([exited, sleep(30_000)]);
      if (server.exitCode === null) process.kill(group, "SIGKILL");
    }
    await rm(dataDir, { recursive: true, force: true });
  }
}

/** Both starts (empty cache, then filled cache) of one checkout. */
async function starts(root: string): Promise<{ cold: StartFigures; warm: StartFigures }> {
  const cacheDir = await mkdtemp(join(tmpdir(), "causeway-bench-models-"));
  try {
    const cold = await firstStart(root, cacheDir);
    const warm = await firstStart(root, cacheDir);
    return { cold, warm };
  } finally {
    await rm(cacheDir, { recursive: true, force: true });
  }
}

function rows(label: string, now: StartFigures, before: StartFigures | null): BenchRow[] {
  const ref = before ? "the same at CAUSEWAY_BENCH_BASE_ROOT" : "no base checkout given";
  const time = (name: string, s: number, r: number | null, note: string): BenchRow => ({
    name: `${label}: ${name}`,
    seconds: s,
    reference: ref,
    referenceSeconds: r,
    note,
  });
  return [
    time(
      "npm start → /health 200",
      now.healthSeconds,
      before?.healthSeconds ?? null,
      `target ≤ 5 s; before: ${FIRST_START_BEFORE.health}`,
    ),
    time(
      "start → first Kang target_validation completed (submitted as soon as an account can be made)",
      now.firstJobSeconds,
      before?.firstJobSeconds ?? null,
      `target ≤ 30 s; before: ${FIRST_START_BEFORE.firstJob}`,
    ),
    {
      name: `${label}: process tree RSS ${IDLE_SECONDS} s after that job`,
      seconds: 0,
      reference: ref,
      referenceSeconds: null,
      figure: {
        measured: `${now.treeMiB.toFixed(0)} MiB`,
        reference: before ? `${before.treeMiB.toFixed(0)} MiB` : "-",
        ratio: before ? now.treeMiB / before.treeMiB : null,
      },
      note:
        `target ≤ 600 MB (572 MiB); before: ${FIRST_START_BEFORE.tree}; now: ` +
        now.processes.map((p) => `${p.what} ${p.mib.toFixed(0)} MiB`).join(", ") +
        `; PSS (shared pages once) ${now.treePssMiB.toFixed(0)} MiB`,
    },
    time(
      "second Kang job, submit → completed",
      now.secondJobSeconds,
      before?.secondJobSeconds ?? null,
      `≈ 1 s; before: ${FIRST_START_BEFORE.secondJob}; now ${now.processes.length > 1 ? "a warm runner" : "the runner starts again (the pool shrank)"}`,
    ),
  ];
}

export const suite: BenchSuite = {
  name: "startup",
  async run() {
    const now = await starts(REPO_ROOT);
    const before = BASE ? await starts(BASE) : null;
    return [
      ...rows("empty model cache", now.cold, before?.cold ?? null),
      ...rows("filled model cache", now.warm, before?.warm ?? null),
    ];
  },
};
