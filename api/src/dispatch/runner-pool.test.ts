import { randomUUID } from "node:crypto";
import { mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { JobSpec } from "@causeway/contract";
import { predictionSpec } from "../../../test/builders/prediction.ts";
import { RunnerPool, WARM_RUNNER_ENV, WARM_RUNNER_FLAGS, type JobEnd } from "./runner-pool.ts";

// The real runner host (runner/src/jobs/thread-host.ts) with a stand-in for its job thread
// (pool-thread.ts needs a model and storage): the spec's output prefix says what the job does
// (crash, hang, run out of heap, kill the whole host, or finish with an exit code and a heap size).
const THREAD = `
import { parentPort } from "node:worker_threads";
parentPort.on("message", (m) => {
  if (m.type !== "run") return;
  const [, what, arg] = m.spec.output_prefix.split("/");
  if (what === "crash") process.exit(7);
  if (what === "hang") return;
  if (what === "kill-host") process.kill(process.pid, "SIGKILL");
  if (what === "oom") {
    const hold = [];
    for (;;) hold.push(new Array(10000).fill(hold.length));
  }
  parentPort.postMessage({
    type: "done",
    job_id: m.spec.job_id,
    exit_code: what === "exit" ? Number(arg) : 0,
    heap: what === "heap" ? Number(arg) : 1000,
  });
});
parentPort.postMessage({ type: "ready" });
`;
const host = (repo: string, dir: string) => `
import { runThreadHost } from ${JSON.stringify(pathToFileURL(join(repo, "runner/src/jobs/thread-host.ts")).href)};
import { SharedBundles } from ${JSON.stringify(pathToFileURL(join(repo, "runner/src/model/shared-bundle.ts")).href)};
import { FsObjectStore } from ${JSON.stringify(pathToFileURL(join(repo, "runner/src/storage/index.ts")).href)};
runThreadHost({
  threadEntry: new URL("./thread.mjs", import.meta.url),
  bundles: new SharedBundles(new FsObjectStore(${JSON.stringify(join(dir, "store"))})),
  resourceLimits: { maxOldGenerationSizeMb: 48, maxYoungGenerationSizeMb: 6 },
});
`;

let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), "causeway-pool-"));
  await writeFile(join(dir, "thread.mjs"), THREAD);
  await writeFile(join(dir, "host.mjs"), host(join(import.meta.dirname, "../../.."), dir));
});
afterAll(() => rm(dir, { recursive: true, force: true }));

const spec = (what = "ok", arg = "") =>
  predictionSpec({ job_id: randomUUID(), output_prefix: `outputs/${what}/${arg}` }) as JobSpec;
const message = { callback_url: "http://127.0.0.1:1/cb", callback_key: "k", attempt: "local-1" };

function pool(
  o: Partial<{
    maxJobs: number;
    heapGrowth: number;
    jobTimeoutMs: number;
    size: number;
    idleMs: number;
  }> = {},
) {
  return new RunnerPool({
    size: o.size ?? 1,
    entry: join(dir, "host.mjs"),
    env: { PATH: process.env.PATH ?? "" },
    maxJobs: o.maxJobs ?? 100,
    heapGrowth: o.heapGrowth ?? 1.5,
    jobTimeoutMs: o.jobTimeoutMs ?? 10_000,
    onIdle: () => {},
    idleMs: o.idleMs,
  });
}

const waitFor = async (ok: () => boolean) => {
  for (let i = 0; i < 400 && !ok(); i++) await new Promise((r) => setTimeout(r, 25));
  return ok();
};

type Ran = JobEnd & { thread: number | undefined; pid: number | undefined };

/** Runs a job on a one-slot pool; `thread` and `pid` are the slot and host it ran on. */
async function runOn(p: RunnerPool, s: JobSpec): Promise<Ran> {
  await waitFor(() => p.idle);
  const [thread] = p.threads();
  const [pid] = p.pids();
  const end = await new Promise<JobEnd>((resolve) => p.run(s, message, resolve));
  return { ...end, thread, pid };
}

describe("RunnerPool", () => {
  it("runs one job after another on the same warm thread and reports each exit code", async () => {
    const p = pool();
    try {
      const a = await runOn(p, spec());
      const b = await runOn(p, spec("exit", "3"));
      expect(a.code).toBe(0);
      expect(b.code).toBe(3);
      expect(a.pid).toBeGreaterThan(0);
      expect([b.thread, b.pid]).toEqual([a.thread, a.pid]);
    } finally {
      await p.close();
    }
  });

  it("fails only the job whose thread crashed; a fresh thread in the same host takes the slot", async () => {
    const p = pool();
    try {
      const before = await runOn(p, spec());
      const crashed = await runOn(p, spec("crash"));
      expect(crashed.code).toBe(7);
      const after = await runOn(p, spec());
      expect(after.code).toBe(0);
      expect(after.thread).not.toBe(before.thread);
      expect(after.pid).toBe(before.pid);
    } finally {
      await p.close();
    }
  });

  it("ends a job past its timeout, and a cancelled one, by terminating its thread", async () => {
    const p = pool({ jobTimeoutMs: 1500 });
    try {
      const slow = await runOn(p, spec("hang"));
      expect(slow.signal).toBe("SIGKILL");
      expect(slow.stderrTail).toContain("exceeded 1500 ms");
      const after = await runOn(p, spec());
      expect(after).toMatchObject({ code: 0 });
      await waitFor(() => p.idle);
      const hung = spec("hang");
      const cancelled = new Promise<JobEnd>((resolve) => p.run(hung, message, resolve));
      setTimeout(() => p.kill(hung.job_id), 50);
      expect((await cancelled).signal).toBe("SIGTERM");
      const next = await runOn(p, spec());
      expect(next.code).toBe(0);
      expect(next.pid).toBe(slow.pid);
    } finally {
      await p.close();
    }
  });

  it("fails a thread that runs out of its heap as out_of_memory; the host and the next job live on", async () => {
    const p = pool();
    try {
      const first = await runOn(p, spec());
      const oom = await runOn(p, spec("oom"));
      expect(oom.outOfMemory).toBe(true);
      expect(oom.code).not.toBe(0);
      const next = await runOn(p, spec());
      expect(next.code).toBe(0);
      expect(next.pid).toBe(first.pid);
    } finally {
      await p.close();
    }
  });

  it("fails the jobs of a host that died; the next job starts a fresh host", async () => {
    const p = pool({ size: 2 });
    try {
      const first = await runOn(p, spec());
      // Two jobs on two threads of one host; the second kills the whole host.
      const hung = new Promise<JobEnd>((resolve) => p.run(spec("hang"), message, resolve));
      const killer = await runOn(p, spec("kill-host"));
      expect(killer.signal).toBe("SIGKILL");
      expect((await hung).signal).toBe("SIGKILL");
      const next = await runOn(p, spec());
      expect(next.code).toBe(0);
      expect(next.pid).toBeGreaterThan(0);
      expect(next.pid).not.toBe(first.pid);
    } finally {
      await p.close();
    }
  });

  it("replaces a thread after maxJobs jobs and when its heap grows", async () => {
    const p = pool({ maxJobs: 2 });
    try {
      const a = await runOn(p, spec());
      const b = await runOn(p, spec());
      const c = await runOn(p, spec());
      expect(b.thread).toBe(a.thread);
      expect(c.thread).not.toBe(b.thread);
    } finally {
      await p.close();
    }
    const q = pool();
    try {
      const a = await runOn(q, spec("heap", "1000"));
      const b = await runOn(q, spec("heap", "1400"));
      const c = await runOn(q, spec("heap", "1600"));
      const d = await runOn(q, spec());
      expect([b.thread, c.thread]).toEqual([a.thread, a.thread]);
      expect(d.thread).not.toBe(c.thread);
    } finally {
      await q.close();
    }
  });

  it("starts its host with the warm runners' V8 flags and malloc arenas", async () => {
    const p = pool();
    try {
      await runOn(p, spec());
      const pid = p.pids()[0]!;
      const args = (await readFile(`/proc/${pid}/cmdline`, "utf8")).split("\0");
      const env = (await readFile(`/proc/${pid}/environ`, "utf8")).split("\0");
      for (const flag of WARM_RUNNER_FLAGS) expect(args).toContain(flag);
      for (const [name, value] of Object.entries(WARM_RUNNER_ENV)) expect(env).toContain(`${name}=${value}`);
    } finally {
      await p.close();
    }
  });

  it("starts no host before a job, grows a thread only while every thread is busy, and exits after its idle period", async () => {
    const p = pool({ size: 2, idleMs: 300 });
    try {
      expect(p.pids()).toEqual([]);
      const a = await runOn(p, spec());
      const b = await runOn(p, spec());
      // One job at a time needs one thread.
      expect(p.threads()).toEqual([a.thread]);
      expect(b.thread).toBe(a.thread);
      // A job that waits while the only thread is busy gets a second one, in the same host.
      const busy = spec("hang");
      p.run(busy, message, () => {});
      expect((await runOn(p, spec())).code).toBe(0);
      expect(p.threads()).toHaveLength(2);
      expect(p.pids()).toEqual([a.pid]);
      p.kill(busy.job_id);
      // Both idle for longer than idleMs: every thread goes, then the host; it starts again on demand.
      expect(await waitFor(() => p.pids().length === 0)).toBe(true);
      expect(p.threads()).toEqual([]);
      await waitFor(() => {
        try {
          process.kill(a.pid!, 0);
          return false;
        } catch {
          return true;
        }
      });
      expect(() => process.kill(a.pid!, 0)).toThrow();
      const d = await runOn(p, spec());
      expect(d.code).toBe(0);
      expect(p.threads()).toHaveLength(1);
      expect(d.pid).not.toBe(a.pid);
    } finally {
      await p.close();
    }
  });

  it("prewarm starts one thread before any job, which takes the next job and goes after the idle period", async () => {
    const p = pool({ size: 2, idleMs: 400 });
    try {
      expect(p.pids()).toEqual([]);
      p.prewarm();
      p.prewarm();
      const [warm] = p.threads();
      expect(p.threads()).toHaveLength(1);
      expect(p.pids()).toHaveLength(1);
      const end = await runOn(p, spec());
      expect(end.code).toBe(0);
      expect(end.thread).toBe(warm);
      expect(await waitFor(() => p.pids().length === 0)).toBe(true);
      // Unused, it also goes.
      p.prewarm();
      expect(p.pids()).toHaveLength(1);
      expect(await waitFor(() => p.pids().length === 0)).toBe(true);
    } finally {
      await p.close();
    }
  });
});
