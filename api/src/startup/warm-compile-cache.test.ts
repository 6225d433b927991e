import { execFile } from "node:child_process";
import { mkdtemp, readdir, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { REPO_ROOT } from "../../../test/shared-data.ts";
import { serverSources } from "./warm-compile-cache.ts";

const run = promisify(execFile);
const node = process.execPath;

describe("compile cache warm-up (npm prestart)", () => {
  let cache: string;
  beforeAll(async () => {
    cache = await mkdtemp(join(tmpdir(), "causeway-compile-cache-"));
  });
  afterAll(() => rm(cache, { recursive: true, force: true }));

  it("covers every product source the server can run, and no test", () => {
    const files = serverSources();
    const rel = files.map((u) => u.slice(`file://${REPO_ROOT}/`.length));
    expect(rel).toContain("api/src/main.ts");
    expect(rel).toContain("runner/src/jobs/pool-thread.ts");
    expect(rel).toContain("runner/src/anndata/validate-worker.ts");
    expect(rel).toContain("crds/src/index.ts");
    expect(rel.filter((f) => f.endsWith(".test.ts"))).toEqual([]);
  });

  it("fills the cache without running any module, so that a process then strips no TypeScript itself", async () => {
    // api/src/main.ts is among the files: had it run, the server would still be listening.
    await run(node, ["api/src/startup/warm-compile-cache.ts"], {
      cwd: REPO_ROOT,
      env: { ...process.env, NODE_COMPILE_CACHE: cache },
      timeout: 60_000,
    });
    expect((await readdir(cache)).length).toBeGreaterThan(0);
    // Node reports each cache lookup; a TypeScript file it had to strip itself reads as a miss.
    const { stderr } = await run(
      node,
      [
        "--input-type=module",
        "-e",
        'await import("./runner/src/jobs/thread-host.ts"); await import("./api/src/app.ts");',
      ],
      {
        cwd: REPO_ROOT,
        env: { ...process.env, NODE_COMPILE_CACHE: cache, NODE_DEBUG_NATIVE: "COMPILE_CACHE" },
        timeout: 60_000,
      },
    );
    const lookups = stderr.split("\n").filter((l) => /reading cache from .* for StrippedTypeScript/.test(l));
    expect(lookups.length).toBeGreaterThan(50);
    expect(lookups.filter((l) => !l.includes("success"))).toEqual([]);
  });
});
