/**
 * Heavy-read figures of the hardening suite, measured as HTTP clients see them, with
 * the API in this process and the /health prober in its own:
 *
 * - ten causal graphs at top_n_degs=10000, dpi=600 (ten different dpi values near 600, so no two
 *   are the same request and the cache does not answer for the render) from one account at once:
 *   /health p95 and max throughout (goal p95 ≤ 100 ms), the server tree's resident-memory growth
 *   (goal ≤ 300 MB), and how the ten were answered (goal: no 5xx; 429 with Retry-After allowed);
 * - 20 large non-default status reads (different sizes) from one account at once: another
 *   account's large read, submitted just after, against the same read on a quiet server (goal ≤ 5 s).
 */
import { spawn } from "node:child_process";
import { readdir, readFile } from "node:fs/promises";
import { fileURLToPath } from "node:url";
import type { BenchRow } from "./bench.ts";
import { account, f, row, submit, waitDone, type Api } from "./suites/service.ts";

const LOAD_CLIENT = fileURLToPath(new URL("./load-client.ts", import.meta.url));

interface Probe {
  requests: number;
  p50ms: number;
  p95ms: number;
  p99ms: number;
  maxms: number;
  non2xx: number;
}

/** /health probed every 10 ms from its own process until `stop()`. */
function probeHealth(url: string): { pid: number; stop(): Promise<Probe> } {
  const child = spawn(process.execPath, [LOAD_CLIENT, `${url}/health`, "1", "3600", "10"], {
    stdio: ["ignore", "pipe", "pipe"],
  });
  let out = "";
  child.stdout.on("data", (d: Buffer) => (out += d.toString()));
  const done = new Promise<Probe>((resolve, reject) =>
    child.on("close", () => {
      try {
        resolve(JSON.parse(out) as Probe);
      } catch {
        reject(new Error(`health probe printed ${JSON.stringify(out)}`));
      }
    }),
  );
  return {
    pid: child.pid!,
    stop: () => {
      // The load client reports what it measured when asked to stop (SIGTERM).
      child.kill("SIGTERM");
      return done;
    },
  };
}

/** Resident memory (bytes) of this process and its descendants, except `exclude`. */
async function treeRss(exclude: Set<number>): Promise<number> {
  const pids = [process.pid];
  for (let i = 0; i < pids.length; i++) {
    const tasks = await readdir(`/proc/${pids[i]}/task`).catch(() => [] as string[]);
    for (const tid of tasks) {
      const children = await readFile(`/proc/${pids[i]}/task/${tid}/children`, "utf8").catch(() => "");
      for (const c of children.split(" ").filter(Boolean).map(Number))
        if (!exclude.has(c) && !pids.includes(c)) pids.push(c);
    }
  }
  let kb = 0;
  for (const pid of pids) {
    const status = await readFile(`/proc/${pid}/status`, "utf8").catch(() => "");
    kb += Number(/VmRSS:\s+(\d+)/.exec(status)?.[1] ?? 0);
  }
  return kb * 1024;
}

const outcomes = (codes: { status: number; retryAfter: string | null }[]) => {
  const counts = new Map<string, number>();
  for (const c of codes) {
    const k = c.status === 429 ? `429 (Retry-After ${c.retryAfter ?? "missing"})` : String(c.status);
    counts.set(k, (counts.get(k) ?? 0) + 1);
  }
  return [...counts].map(([k, n]) => `${n}× ${k}`).join(", ");
};

async function get(url: string, key: string): Promise<{ status: number; retryAfter: string | null }> {
  const res = await fetch(url, { headers: { "x-api-key": key } });
  await res.arrayBuffer();
  return { status: res.status, retryAfter: res.headers.get("retry-after") };
}

export async function heavyReadRows(api: Api, log: (m: string) => void): Promise<BenchRow[]> {
  const rows: BenchRow[] = [];
  const a = await account(api, "internal");
  const b = await account(api, "internal");
  log("heavy reads: a completed Kang target_validation for each of two accounts");
  const pa = await submit(api, a, "target_validation");
  await waitDone(api, a, pa);
  const pb = await submit(api, b, "target_validation");
  await waitDone(api, b, pb);

  // ── ten graphs from one account ─────────────────────────────────────────────────────
  log("ten causal graphs at top_n_degs=10000, dpi≈600 from one account");
  const idleHealth = probeHealth(api.url);
  await new Promise((r) => setTimeout(r, 3000));
  const idle = await idleHealth.stop();
  const health = probeHealth(api.url);
  const exclude = new Set([health.pid]);
  const base = await treeRss(exclude);
  let peak = base;
  let sampling = true;
  const sampler = (async () => {
    while (sampling) {
      peak = Math.max(peak, await treeRss(exclude));
      await new Promise((r) => setTimeout(r, 100));
    }
  })();
  const t0 = performance.now();
  const graphs = await Promise.all(
    Array.from({ length: 10 }, (_, i) =>
      get(`${api.url}/v1/predictions/${pa}/causal-graph?top_n_degs=10000&dpi=${600 - i}`, a),
    ),
  );
  const graphSeconds = (performance.now() - t0) / 1000;
  // /health keeps being probed a little after the last answer: the render's memory is freed then.
  await new Promise((r) => setTimeout(r, 1000));
  const h = await health.stop();
  sampling = false;
  await sampler;
  const grownMb = (peak - base) / 1024 / 1024;
  const served5xx = graphs.filter((g) => g.status >= 500).length;
  rows.push(
    row(
      "GET /health p95 while one account asks for ten causal graphs at top_n_degs=10000, dpi≈600 at once",
      `${f(h.p95ms, 1)} ms`,
      "/health p95, idle server",
      `${f(idle.p95ms, 1)} ms`,
      h.p95ms / idle.p95ms,
      `goal ≤ 100 ms: ${h.p95ms <= 100 ? "met" : "NOT met"}; max ${f(h.maxms, 0)} ms over ${h.requests} probes; ` +
        `the ten answered ${outcomes(graphs)} within ${f(graphSeconds, 1)} s; 5xx: ${served5xx}`,
    ),
    row(
      "server tree resident-memory growth during the ten graphs",
      `${f(grownMb, 0)} MB`,
      "budget",
      "300 MB",
      grownMb / 300,
      `goal ≤ 300 MB: ${grownMb <= 300 ? "met" : "NOT met"}; ${f(base / 1024 / 1024, 0)} MB before, peak ${f(peak / 1024 / 1024, 0)} MB (sampled every 100 ms; the API, its worker threads and runner host)`,
    ),
  );

  // ── 20 large reads from one account, one from another ──────────────────────────────
  log("20 large status reads from one account, one from another");
  const large = (rowsN: number) => `max_rows=${rowsN}&max_source_influence_rows=45000&max_columns=450`;
  // A first read starts the render and compression workers; the reference is a warm one.
  await get(`${api.url}/v1/predictions/${pb}?${large(14_450)}`, b);
  const quietT0 = performance.now();
  const quietRead = await get(`${api.url}/v1/predictions/${pb}?${large(14_400)}`, b);
  const quiet = (performance.now() - quietT0) / 1000;
  const burst = Promise.all(
    Array.from({ length: 20 }, (_, i) => get(`${api.url}/v1/predictions/${pa}?${large(14_500 - i)}`, a)),
  );
  await new Promise((r) => setTimeout(r, 200));
  const otherT0 = performance.now();
  const other = await get(`${api.url}/v1/predictions/${pb}?${large(14_300)}`, b);
  const otherSeconds = (performance.now() - otherT0) / 1000;
  const burstCodes = await burst;
  rows.push(
    row(
      "another account's large status read while one account has 20 large reads in flight",
      `${f(otherSeconds, 2)} s`,
      "the same read on a quiet server",
      `${f(quiet, 2)} s`,
      otherSeconds / quiet,
      `goal ≤ 5 s: ${otherSeconds <= 5 && other.status === 200 ? "met" : "NOT met"}; answered ${other.status} (quiet ${quietRead.status}); ` +
        `the 20 answered ${outcomes(burstCodes)}; sizes ${large(14_500)} and below`,
    ),
  );
  return rows;
}
