import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from "vitest";
import { deriveCallbackKey, type JobSpec } from "@causeway/contract";
import { waitFor } from "../../../test/harness/proc.ts";
import { LocalExecutor } from "./local-executor.ts";

let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), "causeway-exec-"));
  // A stand-in runner: writes its environment to a file named after the job, then exits.
  await writeFile(
    join(dir, "runner.mjs"),
    `import { writeFileSync } from "node:fs";
     const spec = JSON.parse(process.env.CAUSEWAY_JOB_SPEC);
     writeFileSync(${JSON.stringify(dir)} + "/" + spec.job_id + ".json", JSON.stringify(process.env));
     await new Promise((r) => setTimeout(r, 150));
     process.exit(spec.params.exit ?? 0);`,
  );
});
afterAll(async () => rm(dir, { recursive: true, force: true }));
afterEach(() => vi.unstubAllEnvs());

const spec = (id: string, exit = 0) =>
  ({ kind: "prediction", job_id: id, params: { exit } }) as unknown as JobSpec;

describe("LocalExecutor", () => {
  it("runs children with the contract's env, bounded concurrency, and reports exits", async () => {
    const exits: { id: string; code: number | null }[] = [];
    let maxRunning = 0;
    // npm start's compile cache reaches the runners (they then strip no TypeScript themselves).
    vi.stubEnv("NODE_COMPILE_CACHE", join(dir, "compile-cache"));
    const ex: LocalExecutor = new LocalExecutor({
      concurrency: 2,
      runnerEntry: join(dir, "runner.mjs"),
      callbackSecret: "s".repeat(40),
      callbackUrl: (kind, id) => `http://127.0.0.1:1/internal/v1/jobs/${kind}/${id}/callback`,
      storageEnv: { CAUSEWAY_STORAGE: "fs", CAUSEWAY_STORAGE_DIR: "/data/objects" },
      onStart: () => {
        maxRunning = Math.max(maxRunning, ex.stats().running);
      },
      onExit: (s, code) => exits.push({ id: s.job_id, code }),
    });
    const ids = [
      "11111111-1111-4111-8111-111111111111",
      "22222222-2222-4222-8222-222222222222",
      "33333333-3333-4333-8333-333333333333",
    ];
    await ex.dispatch(spec(ids[0]!), {});
    await ex.dispatch(spec(ids[1]!, 3), {});
    // Dispatched again after a restart: the attempt after the one that last reported.
    await ex.dispatch(spec(ids[2]!), { traceparent: "00-abc-def-01", previousAttempt: "local-2" });
    expect(ex.stats()).toEqual({ queued: 1, running: 2 });
    await waitFor("three exits", async () => exits.length >= 3, { timeoutMs: 30_000, intervalMs: 20 });
    expect(maxRunning).toBe(2);
    expect(exits.find((e) => e.id === ids[1])!.code).toBe(3);
    const { readFile } = await import("node:fs/promises");
    const env = JSON.parse(await readFile(join(dir, `${ids[2]}.json`), "utf8")) as Record<string, string>;
    expect(env.CAUSEWAY_CALLBACK_KEY).toBe(deriveCallbackKey("s".repeat(40), ids[2]!));
    expect(env.CAUSEWAY_CALLBACK_URL).toContain(`/prediction/${ids[2]}/callback`);
    expect(env.CAUSEWAY_ATTEMPT).toBe("local-3");
    const first = JSON.parse(await readFile(join(dir, `${ids[0]}.json`), "utf8")) as Record<string, string>;
    expect(first.CAUSEWAY_ATTEMPT).toBe("local-1");
    expect(env.CAUSEWAY_STORAGE_DIR).toBe("/data/objects");
    expect(env.TRACEPARENT).toBe("00-abc-def-01");
    expect(env).not.toHaveProperty("CAUSEWAY_CALLBACK_SECRET");
    expect(env).not.toHaveProperty("DATABASE_URL");
    expect(env.NODE_COMPILE_CACHE).toBe(join(dir, "compile-cache"));
    await ex.close();
    await expect(ex.dispatch(spec(ids[0]!), {})).rejects.toThrow();
  });
});
