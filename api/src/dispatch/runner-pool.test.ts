import { mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { JobSpec } from "@causeway/contract";
import { RunnerPool, WARM_RUNNER_ENV, WARM_RUNNER_FLAGS, type JobEnd } from "./runner-pool.ts";

// A stand-in for runner/src/jobs/pool-worker.ts speaking its protocol: the job's params say
// what to do (crash, hang, or finish with an exit code and the process id as proof of reuse).
const WORKER = `
process.on("message", (m) => {
  const p = m.spec.params;
  if (p.crash) process.exit(7);
  if (p.hang) return;
  process.send({ type: "done", job_id: m.spec.job_id, exit_code: p.exit ?? 0, rss: p.rss ?? 1000 });
});
process.send({ type: "ready" });
`;

let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), "causeway-pool-"));
  await writeFile(join(dir, "worker.mjs"), WORKER);
});
afterAll(() => rm(dir, { recursive: true, force: true }));

const spec = (id: string, params: Record<string, unknown> = {}) =>
  ({ job_id: id, params }) as unknown as JobSpec;
const message = { callback_url: "http://127.0.0.1:1/cb", callback_key: "k", attempt: "local-1" };

function pool(
  o: Partial<{ maxJobs: number; rssGrowth: number; jobTimeoutMs: number; size: number; idleMs: number }> = {},
) {
  return new RunnerPool({
    size: o.size ?? 1,
    entry: join(dir, "worker.mjs"),
    env: { PATH: process.env.PATH ?? "" },
    maxJobs: o.maxJobs ?? 100,
    rssGrowth: o.rssGrowth ?? 1.5,
    jobTimeoutMs: o.jobTimeoutMs ?? 10_000,
    onIdle: () => {},
    idleMs: o.idleMs,
  });
}

/** Runs a job on a one-slot pool; `pid` is the process it ran on. */
async function runOn(p: RunnerPool, s: JobSpec): Promise<JobEnd & { pid: number | undefined }> {
  for (let i = 0; i < 200 && !p.idle; i++) await new Promise((r) => setTimeout(r, 25));
  const pid = p.pids()[0];
  const end = await new Promise<JobEnd>((resolve) => p.run(s, message, resolve));
  return { ...end, pid };
}
const pidOf = (end: { pid: number | undefined }) => end.pid;

describe("RunnerPool", () => {
  it("runs one job after another on the same warm process and reports each exit code", async () => {
    const p = pool();
    try {
      const a = await runOn(p, spec("a"));
      const b = await runOn(p, spec("b", { exit: 3 }));
      expect(a.code).toBe(0);
      expect(b.code).toBe(3);
      expect(pidOf(a)).toBeGreaterThan(0);
      expect(pidOf(b)).toBe(pidOf(a));
    } finally {
      await p.close();
    }
  });

  it("fails only the job whose process crashed; a fresh process takes the slot", async () => {
    const p = pool();
    try {
      const before = await runOn(p, spec("a"));
      const crashed = await runOn(p, spec("b", { crash: true }));
      expect(crashed.code).toBe(7);
      const after = await runOn(p, spec("c"));
      expect(after.code).toBe(0);
      expect(pidOf(after)).not.toBe(pidOf(before));
    } finally {
      await p.close();
    }
  });

  it("stops a job that runs past its timeout", async () => {
    const p = pool({ jobTimeoutMs: 300 });
    try {
      const end = await runOn(p, spec("slow", { hang: true }));
      expect(end.signal).toBe("SIGKILL");
      expect(end.stderrTail).toContain("exceeded 300 ms");
      expect((await runOn(p, spec("next"))).code).toBe(0);
    } finally {
      await p.close();
    }
  });

  it("replaces a process after maxJobs jobs and when its memory grows", async () => {
    const p = pool({ maxJobs: 2 });
    try {
      const a = await runOn(p, spec("a"));
      const b = await runOn(p, spec("b"));
      const c = await runOn(p, spec("c"));
      expect(pidOf(b)).toBe(pidOf(a));
      expect(pidOf(c)).not.toBe(pidOf(b));
    } finally {
      await p.close();
    }
    const q = pool();
    try {
      const a = await runOn(q, spec("a", { rss: 1000 }));
      const b = await runOn(q, spec("b", { rss: 1600 }));
      const c = await runOn(q, spec("c"));
      expect(pidOf(b)).toBe(pidOf(a));
      expect(pidOf(c)).not.toBe(pidOf(b));
    } finally {
      await q.close();
    }
  });

  it("starts its processes with the warm runners' V8 flags and malloc arenas", async () => {
    const p = pool();
    try {
      await runOn(p, spec("flags"));
      const pid = p.pids()[0]!;
      const args = (await readFile(`/proc/${pid}/cmdline`, "utf8")).split("\0");
      const env = (await readFile(`/proc/${pid}/environ`, "utf8")).split("\0");
      for (const flag of WARM_RUNNER_FLAGS) expect(args).toContain(flag);
      for (const [name, value] of Object.entries(WARM_RUNNER_ENV)) expect(env).toContain(`${name}=${value}`);
    } finally {
      await p.close();
    }
  });

  it("starts no process before a job, grows only while every process is busy, and exits after its idle period", async () => {
    const p = pool({ size: 2, idleMs: 300 });
    const waitFor = async (ok: () => boolean) => {
      for (let i = 0; i < 200 && !ok(); i++) await new Promise((r) => setTimeout(r, 25));
      return ok();
    };
    try {
      expect(p.pids()).toEqual([]);
      const a = await runOn(p, spec("a"));
      const b = await runOn(p, spec("b"));
      // One job at a time needs one process.
      expect(p.pids()).toEqual([pidOf(a)]);
      expect(pidOf(b)).toBe(pidOf(a));
      // A job that waits while the only process is busy gets a second one.
      p.run(spec("busy", { hang: true }), message, () => {});
      expect((await runOn(p, spec("c"))).code).toBe(0);
      expect(p.pids()).toHaveLength(2);
      p.kill("busy");
      // Both idle for longer than idleMs: the pool lets every process go, and starts again on demand.
      expect(await waitFor(() => p.pids().length === 0)).toBe(true);
      expect((await runOn(p, spec("d"))).code).toBe(0);
      expect(p.pids()).toHaveLength(1);
    } finally {
      await p.close();
    }
  });

  it("prewarm starts one process before any job, which takes the next job and goes after the idle period", async () => {
    const p = pool({ size: 2, idleMs: 400 });
    try {
      expect(p.pids()).toEqual([]);
      p.prewarm();
      p.prewarm();
      const [warm] = p.pids();
      expect(p.pids()).toHaveLength(1);
      const end = await runOn(p, spec("after-prewarm"));
      expect(end.code).toBe(0);
      expect(end.pid).toBe(warm);
      for (let i = 0; i < 100 && p.pids().length > 0; i++) await new Promise((r) => setTimeout(r, 25));
      expect(p.pids()).toEqual([]);
      // Unused, it also goes.
      p.prewarm();
      expect(p.pids()).toHaveLength(1);
      for (let i = 0; i < 100 && p.pids().length > 0; i++) await new Promise((r) => setTimeout(r, 25));
      expect(p.pids()).toEqual([]);
    } finally {
      await p.close();
    }
  });
});
